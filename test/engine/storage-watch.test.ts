import { describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/clock";
import { MemoryStorage } from "../../adapters/memory";
import { StorageWatch } from "../../src/engine/storage-watch";
import { guardStorage } from "../../src/ports/guard";
import { isReadOnlyStoreMethod } from "../../src/ports/public";
import type { StorageTx } from "../../src/ports";
import { FaultyStorage } from "../support/faulty-storage";
import { AdapterError } from "../../src/errors";

/**
 * The store methods that may write, by store: every other member only reads. Written out so a
 * method added under a name that says "read" (`get…`, `find…`, `list…`, `page…`, `lock…`) but
 * writes is caught here (`isReadOnlyStoreMethod` decides what a request committed).
 */
const WRITES: Record<keyof StorageTx, string[]> = {
  accounts: ["insertAccount", "updateAccountSettings", "insertApiKey", "updateApiKey"],
  rateLimits: ["take", "pruneBefore"],
  owners: ["heartbeat", "reap", "retire", "prune"],
  ledger: ["appendEntries", "insertReservations", "updateReservation"],
  resources: ["insert", "delete", "update", "updateMany"],
  events: ["insert", "pruneBefore"],
  idempotency: ["claim", "put", "replaceAtCommit", "delete", "pruneExpired"],
  work: ["enqueue", "complete", "release", "completeMany", "releaseMany", "takeNext", "releaseAllLeases"],
  meta: ["setIfAbsent", "set", "raise"],
  deliveries: ["insert", "pruneBefore"],
  depositAddresses: ["insert"],
};

async function watched() {
  const faulty = new FaultyStorage(new MemoryStorage());
  const watch = new StorageWatch(new ManualClock());
  const storage = guardStorage(faulty, watch);
  await storage.init();
  return { faulty, watch, storage };
}

describe("storage watch", () => {
  it("knows which store methods write, for every store of the port", async () => {
    const storage = new MemoryStorage();
    await storage.init();
    await storage.transaction(async (tx) => {
      for (const [store, methods] of Object.entries(tx) as [keyof StorageTx, object][]) {
        const names = new Set<string>();
        for (let o: object | null = methods; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
          for (const name of Object.getOwnPropertyNames(o)) if (name !== "constructor" && typeof (methods as any)[name] === "function") names.add(name);
        }
        const writes = [...names].filter((n) => !isReadOnlyStoreMethod(n)).sort();
        expect(writes, store).toEqual([...WRITES[store]].sort());
      }
    });
  });

  it("marks storage failing on StorageUnavailableError, until a session succeeds (one that writes, for a full disk)", async () => {
    const { faulty, watch, storage } = await watched();
    const changes: (string | null)[] = [];
    watch.onChange((failure) => changes.push(failure?.reason ?? null));
    faulty.inject([{ at: 0, mode: "before", reason: "connection" }]);
    await expect(storage.transaction((tx) => tx.meta.set("a", "1"))).rejects.toThrow();
    expect(watch.failure?.reason).toBe("connection");
    await storage.transaction((tx) => tx.meta.get("a")); // a read is enough: the database answers again
    expect(watch.failure).toBeNull();

    faulty.diskFull = true;
    await expect(storage.transaction((tx) => tx.meta.set("a", "1"))).rejects.toThrow();
    expect(watch.failure).toMatchObject({ reason: "disk_full", writesOnly: true });
    await storage.transaction((tx) => tx.meta.get("a"));
    expect(watch.failure?.reason).toBe("disk_full"); // reads work on a full disk: they prove nothing
    faulty.diskFull = false;
    await storage.transaction((tx) => tx.meta.set("a", "2"));
    expect(watch.failure).toBeNull();
    expect(changes).toEqual(["connection", null, "disk_full", null]); // what the host logs: once per change
  });

  it("ignores failures that are not storage being unavailable", async () => {
    const { watch, storage } = await watched();
    await expect(storage.transaction(() => Promise.reject(new Error("a bug")))).rejects.toThrow("a bug");
    expect(watch.failure).toBeNull();
  });

  it("tells whether a request committed a write: not for reads, rolled-back writes or untracked bookkeeping", async () => {
    const { faulty, watch, storage } = await watched();
    const read = await watch.track(() => storage.transaction((tx) => tx.meta.get("a")));
    expect(read.committed).toBe(false);
    const rolledBack = await watch.track(() =>
      storage.transaction((tx) => tx.meta.set("a", "1").then(() => Promise.reject(new Error("no")))).catch(() => null),
    );
    expect(rolledBack.committed).toBe(false);
    const bookkeeping = await watch.track(() => watch.untracked(() => storage.transaction((tx) => tx.meta.set("a", "1"))));
    expect(bookkeeping.committed).toBe(false);
    const wrote = await watch.track(() => storage.transaction((tx) => tx.meta.set("a", "2")));
    expect(wrote.committed).toBe(true);
    // an autocommit session keeps what it wrote before it failed: counted
    faulty.inject([{ at: 0, mode: "after", reason: "connection" }]);
    const lost = await watch.track(() => storage.autocommit((tx) => tx.meta.set("b", "1")).catch(() => null));
    expect(lost.committed).toBe(true);
    // two requests at once are told apart
    const [a, b] = await Promise.all([
      watch.track(() => storage.transaction((tx) => tx.meta.get("a"))),
      watch.track(() => storage.transaction((tx) => tx.meta.set("c", "1"))),
    ]);
    expect([a.committed, b.committed]).toEqual([false, true]);
  });

  it("hands the core a transaction's stores guarded: each store one object, what a method throws (at once or later) an AdapterError naming it", async () => {
    const inner = new MemoryStorage();
    await inner.init();
    const boom = new Error("boom");
    const broken = Object.assign(Object.create(inner), {
      transaction: (fn: (tx: StorageTx) => Promise<unknown>) =>
        inner.transaction((tx) =>
          fn({
            ...tx,
            meta: {
              ...tx.meta,
              get: () => Promise.reject(boom),
              set: () => {
                throw boom;
              },
            },
          } as StorageTx),
        ),
    });
    const guarded = guardStorage(broken as MemoryStorage);
    await guarded.transaction(async (tx) => {
      expect(tx.meta).toBe(tx.meta);
      const later = await tx.meta.get("a").catch((e: unknown) => e);
      expect(later).toBeInstanceOf(AdapterError);
      expect(later).toMatchObject({ adapter: "memory", cause: boom, message: expect.stringContaining("meta.get") });
      let now: unknown;
      try {
        await tx.meta.set("a", "1");
      } catch (e) {
        now = e;
      }
      expect(now).toBeInstanceOf(AdapterError);
      expect(now).toMatchObject({ cause: boom, message: expect.stringContaining("meta.set") });
      return null;
    });
  });
});

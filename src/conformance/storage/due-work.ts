import { describe, expect, it } from "vitest";
import type { DueWorkRecord } from "../../ports/storage";
import { type SuiteContext, T0, work } from "./fixtures";

export function dueWorkSuite(s: SuiteContext): void {
  describe("due work", () => {
    it("skips a duplicate dedupe key and claims only what is due, oldest first", async () => {
      await s.storage.transaction((tx) =>
        tx.work.enqueue([
          work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0 + 50, "d1"),
          work("job_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 10),
          work("job_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 5000),
        ]),
      );
      await s.storage.transaction((tx) => tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaa4", T0, "d1")]));
      expect((await s.inspect.work()).map((w) => w.id).sort()).toEqual([
        "job_01aaaaaaaaaaaaaaaaaaaaaaa1",
        "job_01aaaaaaaaaaaaaaaaaaaaaaa2",
        "job_01aaaaaaaaaaaaaaaaaaaaaaa3",
      ]);
      expect(await s.storage.transaction((tx) => tx.work.nextRunAt())).toBe(T0 + 10);
      const claimed = await s.storage.claimDueWork({ now: T0 + 100, limit: 10, leaseMs: 1000, owner: "w1" });
      expect(claimed.map((w) => w.id)).toEqual(["job_01aaaaaaaaaaaaaaaaaaaaaaa2", "job_01aaaaaaaaaaaaaaaaaaaaaaa1"]);
      expect(claimed.every((w) => w.leaseOwner === "w1" && w.leaseUntil === T0 + 1100 && w.attempts === 1)).toBe(true);
      // leased: nobody else gets them while the lease holds
      expect(await s.storage.claimDueWork({ now: T0 + 200, limit: 10, leaseMs: 1000, owner: "w2" })).toEqual([]);
      expect(await s.storage.transaction((tx) => tx.work.nextRunAt())).toBe(T0 + 1100);
    });

    it("hands an item whose lease expired to another worker, and ignores the first one after", async () => {
      await s.storage.transaction((tx) => tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0)]));
      const [first] = await s.storage.claimDueWork({ now: T0, limit: 1, leaseMs: 1000, owner: "w1" });
      expect(first?.attempts).toBe(1);
      const [again] = await s.storage.claimDueWork({ now: T0 + 1000, limit: 1, leaseMs: 1000, owner: "w2" });
      expect(again).toMatchObject({ id: first!.id, leaseOwner: "w2", attempts: 2 });
      expect(await s.storage.transaction((tx) => tx.work.complete(first!.id, "w1"))).toBe(false);
      expect(await s.storage.transaction((tx) => tx.work.complete(first!.id, "w2"))).toBe(true);
      expect(await s.inspect.work()).toEqual([]);
    });

    it("gives back every running lease at once, whoever holds it, for a store's one user starting", async () => {
      await s.storage.transaction((tx) =>
        tx.work.enqueue([
          work("job_01aaaaaaaaaaaaaaaaaaaaaab1", T0),
          work("job_01aaaaaaaaaaaaaaaaaaaaaab2", T0),
          work("job_01aaaaaaaaaaaaaaaaaaaaaab3", T0 + 5000),
        ]),
      );
      await s.storage.claimDueWork({ now: T0, limit: 1, leaseMs: 1000, owner: "dead-1" });
      await s.storage.claimDueWork({ now: T0, limit: 1, leaseMs: 60_000, owner: "dead-2" });
      expect(await s.storage.transaction((tx) => tx.work.releaseAllLeases(T0 + 2000))).toBe(1); // the other lease has ended already
      const again = await s.storage.claimDueWork({ now: T0 + 2000, limit: 10, leaseMs: 1000, owner: "w" });
      expect(again.map((w) => w.id).sort()).toEqual(["job_01aaaaaaaaaaaaaaaaaaaaaab1", "job_01aaaaaaaaaaaaaaaaaaaaaab2"]);
      expect(again.every((w) => w.attempts === 2)).toBe(true); // the attempt that died counts
      expect(await s.storage.transaction((tx) => tx.work.releaseAllLeases(T0 + 2000))).toBe(2);
      expect((await s.inspect.work()).find((w) => w.id === "job_01aaaaaaaaaaaaaaaaaaaaaab3")).toMatchObject({ leaseOwner: null, runAt: T0 + 5000 });
    });

    it("releases for a retry, resets attempts on reschedule, and never claims dead items", async () => {
      await s.storage.transaction((tx) => tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0, "d-dead")]));
      await s.storage.claimDueWork({ now: T0, limit: 1, leaseMs: 1000, owner: "w1" });
      expect(await s.storage.transaction((tx) => tx.work.release("job_01aaaaaaaaaaaaaaaaaaaaaaa1", "w1", { runAt: T0 + 500, lastError: "nope" }))).toBe(true);
      const [stored] = await s.inspect.work();
      expect(stored).toMatchObject({ runAt: T0 + 500, lastError: "nope", leaseOwner: null, attempts: 1, status: "ready" });
      await s.storage.claimDueWork({ now: T0 + 500, limit: 1, leaseMs: 1000, owner: "w1" });
      await s.storage.transaction((tx) => tx.work.release("job_01aaaaaaaaaaaaaaaaaaaaaaa1", "w1", { runAt: T0 + 600, lastError: null, resetAttempts: true }));
      expect((await s.inspect.work())[0]).toMatchObject({ attempts: 0, runAt: T0 + 600 });
      await s.storage.claimDueWork({ now: T0 + 600, limit: 1, leaseMs: 1000, owner: "w1" });
      await s.storage.transaction((tx) => tx.work.release("job_01aaaaaaaaaaaaaaaaaaaaaaa1", "w1", { runAt: T0 + 700, lastError: "gave up", dead: true }));
      expect(await s.storage.claimDueWork({ now: T0 + 10_000, limit: 1, leaseMs: 1000, owner: "w1" })).toEqual([]);
      expect(await s.storage.transaction((tx) => tx.work.nextRunAt())).toBeNull();
      expect(await s.storage.transaction((tx) => tx.work.get("job_01aaaaaaaaaaaaaaaaaaaaaaa1"))).toMatchObject({
        status: "dead",
        lastError: "gave up",
        dedupeKey: null,
      });
      // the dead item gave its dedupe key up: the same work can be scheduled again
      await s.storage.transaction((tx) => tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaa2", T0, "d-dead")]));
      expect((await s.inspect.work()).map((w) => w.id).sort()).toEqual(["job_01aaaaaaaaaaaaaaaaaaaaaaa1", "job_01aaaaaaaaaaaaaaaaaaaaaaa2"]);
    });

    it("completes and releases many items of one owner at once, leaving others' alone", async () => {
      const items = Array.from({ length: 5 }, (_, i) => work(`job_01aaaaaaaaaaaaaaaaaaaaaaa${i}`, T0));
      await s.storage.transaction((tx) => tx.work.enqueue(items));
      const mine = await s.storage.claimDueWork({ now: T0, limit: 4, leaseMs: 1000, owner: "w1" });
      const [theirs] = await s.storage.claimDueWork({ now: T0, limit: 1, leaseMs: 1000, owner: "w2" });
      const [a, b, c, d] = mine.map((w) => w.id) as [string, string, string, string];
      const completed = await s.storage.transaction((tx) => tx.work.completeMany([a, b, theirs!.id], "w1"));
      expect(completed.sort()).toEqual([a, b].sort());
      const released = await s.storage.transaction((tx) =>
        tx.work.releaseMany("w1", [
          { id: c, runAt: T0 + 500, lastError: "HTTP 500" },
          { id: d, runAt: T0 + 700, lastError: null },
          { id: theirs!.id, runAt: T0 + 900, lastError: "not mine" },
        ]),
      );
      expect(released.sort()).toEqual([c, d].sort());
      const left = new Map((await s.inspect.work()).map((w) => [w.id, w]));
      expect(left.has(a) || left.has(b)).toBe(false);
      expect(left.get(c)).toMatchObject({ runAt: T0 + 500, lastError: "HTTP 500", leaseOwner: null, leaseUntil: null, attempts: 1, status: "ready" });
      expect(left.get(d)).toMatchObject({ runAt: T0 + 700, lastError: null, leaseOwner: null });
      expect(left.get(theirs!.id)).toMatchObject({ leaseOwner: "w2", runAt: T0 });
      expect(await s.storage.transaction((tx) => tx.work.completeMany([], "w1"))).toEqual([]);
      expect(await s.storage.transaction((tx) => tx.work.releaseMany("w1", []))).toEqual([]);
    });

    it("counts each kind's items as due, leased, scheduled or dead, with the oldest due time", async () => {
      expect(await s.storage.transaction((tx) => tx.work.stats(T0))).toEqual([]);
      await s.storage.transaction((tx) =>
        tx.work.enqueue([
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0 - 300), kind: "a" },
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 - 100), kind: "a" },
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 900), kind: "a" },
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa4", T0 - 50), kind: "b" },
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa5", T0 - 20), kind: "b" },
        ]),
      );
      // the oldest of "a" is leased (running), one of "b" dies
      await s.storage.claimDueWork({ now: T0, limit: 1, leaseMs: 1000, owner: "w1", onlyKinds: ["a"] });
      const [b] = await s.storage.claimDueWork({ now: T0, limit: 1, leaseMs: 1000, owner: "w1", onlyKinds: ["b"] });
      await s.storage.transaction((tx) => tx.work.release(b!.id, "w1", { runAt: T0, lastError: "x", dead: true }));
      const byKind = async (now: number) =>
        Object.fromEntries((await s.storage.transaction((tx) => tx.work.stats(now))).map(({ kind, ...rest }) => [kind, rest]));
      expect(await byKind(T0)).toEqual({
        a: { due: 1, leased: 1, scheduled: 1, dead: 0, oldestDueAt: T0 - 100 },
        b: { due: 1, leased: 0, scheduled: 0, dead: 1, oldestDueAt: T0 - 20 },
      });
      // the lease ran out: the leased item is due again and the oldest; the future one came due
      expect((await byKind(T0 + 1000)).a).toEqual({ due: 3, leased: 0, scheduled: 0, dead: 0, oldestDueAt: T0 - 300 });
      // the same counts from the adapter's own rows
      const rows = await s.inspect.work();
      expect(rows.filter((w) => w.kind === "a").length).toBe(3);
      expect(rows.filter((w) => w.kind === "b" && w.status === "dead").length).toBe(1);
    });

    it("keeps an item's group and claims only the kinds a lane asks for", async () => {
      await s.storage.transaction((tx) =>
        tx.work.enqueue([
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0), kind: "a", group: "g1" },
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 1), kind: "b" },
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 2), kind: "c" },
        ]),
      );
      expect((await s.inspect.work()).map((w) => w.group ?? null)).toEqual(["g1", null, null]);
      const onlyA = await s.storage.claimDueWork({ now: T0 + 10, limit: 10, leaseMs: 1000, owner: "w1", onlyKinds: ["a"] });
      expect(onlyA.map((w) => [w.kind, w.group])).toEqual([["a", "g1"]]);
      const notC = await s.storage.claimDueWork({ now: T0 + 10, limit: 10, leaseMs: 1000, owner: "w1", exceptKinds: ["c"] });
      expect(notC.map((w) => w.kind)).toEqual(["b"]);
      const rest = await s.storage.claimDueWork({ now: T0 + 10, limit: 10, leaseMs: 1000, owner: "w1", exceptKinds: [] });
      expect(rest.map((w) => w.kind)).toEqual(["c"]);
    });

    it("keeps the request an item's chain of work started from, through claims and releases", async () => {
      // the trace context it was scheduled in (a traced engine), kept as given
      const request = {
        id: "req_01aaaaaaaaaaaaaaaaaaaaaaaa",
        idempotency_key: "payout-42",
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        tracestate: "vendor=a,other=b",
      };
      await s.storage.transaction((tx) =>
        tx.work.enqueue([
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0), request },
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 1), request: { id: "req_01bbbbbbbbbbbbbbbbbbbbbbbb", idempotency_key: null } },
          work("job_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 2),
        ]),
      );
      const stored = await s.inspect.work();
      expect(stored.map((w) => w.request ?? null)).toEqual([request, { id: "req_01bbbbbbbbbbbbbbbbbbbbbbbb", idempotency_key: null }, null]);
      const claimed = await s.storage.claimDueWork({ now: T0 + 10, limit: 10, leaseMs: 1000, owner: "w1" });
      expect(claimed.map((w) => w.request ?? null)).toEqual(stored.map((w) => w.request ?? null));
      await s.storage.transaction((tx) => tx.work.release(claimed[0]!.id, "w1", { runAt: T0 + 20, lastError: "again" }));
      const again = await s.storage.claimDueWork({ now: T0 + 500, limit: 10, leaseMs: 1000, owner: "w2" });
      expect(again).toHaveLength(1);
      expect(again[0]).toMatchObject({ id: claimed[0]!.id, request });
      expect(await s.storage.transaction((tx) => tx.work.get(claimed[0]!.id))).toMatchObject({ request });
    });

    it("keeps each group under groupLimit leases, counting every holder, until leases end", async () => {
      const items: DueWorkRecord[] = [];
      for (let i = 0; i < 10; i++) {
        const group = i < 5 ? "we_a" : i < 8 ? "we_b" : null;
        items.push({ ...work(`job_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0 + i), group });
      }
      await s.storage.transaction((tx) => tx.work.enqueue(items));
      const claim = (owner: string, now: number, limit = 10) => s.storage.claimDueWork({ now, limit, leaseMs: 1000, owner, groupLimit: 2 });
      const groupsOf = (ws: DueWorkRecord[]) => ws.map((w) => w.group ?? "-").sort();
      const first = await claim("w1", T0 + 100);
      expect(groupsOf(first)).toEqual(["-", "-", "we_a", "we_a", "we_b", "we_b"]);
      expect(first.filter((w) => w.group === "we_a").map((w) => w.id)).toEqual([items[0]!.id, items[1]!.id]); // oldest first
      expect(await claim("w2", T0 + 200)).toEqual([]); // both groups are at their limit, whoever asks
      expect(await s.storage.transaction((tx) => tx.work.complete(first.find((w) => w.group === "we_a")!.id, "w1"))).toBe(true);
      expect(groupsOf(await claim("w2", T0 + 300))).toEqual(["we_a"]);
      // once the leases expire they no longer count: expired and waiting items share the limit again
      const later = await claim("w3", T0 + 1300, 10);
      expect(groupsOf(later)).toEqual(["-", "-", "we_a", "we_a", "we_b", "we_b"]);
    });

    it("hands slots on: takeNext leases each group's oldest due, unheld item of the kind, as a claim would", async () => {
      const items: DueWorkRecord[] = [
        { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0 + 3), kind: "a", group: "we_a" },
        { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 1), kind: "a", group: "we_a" },
        { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 2), kind: "a", group: "we_a" },
        { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa4", T0 + 500), kind: "a", group: "we_b" }, // not due yet
        { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa5", T0), kind: "b", group: "we_b" }, // another kind
        { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa6", T0), kind: "a", group: "we_c" },
        { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa7", T0), kind: "a" }, // no group
      ];
      await s.storage.transaction((tx) => tx.work.enqueue(items));
      // someone holds the oldest of we_a; an expired lease of we_c's item holds nothing
      const [held] = await s.storage.claimDueWork({ now: T0 + 1, limit: 1, leaseMs: 1000, owner: "w2", onlyKinds: ["a"], groupLimit: 1 });
      expect(held?.id).toBe("job_01aaaaaaaaaaaaaaaaaaaaaaa6");
      const [heldA] = await s.storage.claimDueWork({ now: T0 + 10, limit: 1, leaseMs: 1000, owner: "w2", onlyKinds: ["a"] });
      expect(heldA?.id).toBe("job_01aaaaaaaaaaaaaaaaaaaaaaa7");
      await s.storage.claimDueWork({ now: T0 + 10, limit: 1, leaseMs: 1000, owner: "w2", onlyKinds: ["a"] }); // job_…2, we_a's oldest
      const take = (groups: string[], now: number) =>
        s.storage.transaction((tx) => tx.work.takeNext({ kind: "a", groups, owner: "w1", now, leaseUntil: now + 1000 }));
      const taken = await take(["we_a", "we_a", "we_a", "we_b"], T0 + 10);
      expect(taken.map((w) => w.id)).toEqual(["job_01aaaaaaaaaaaaaaaaaaaaaaa3", "job_01aaaaaaaaaaaaaaaaaaaaaaa1"]);
      expect(taken.every((w) => w.leaseOwner === "w1" && w.leaseUntil === T0 + 1010 && w.attempts === 1)).toBe(true);
      expect(await take(["we_a"], T0 + 20)).toEqual([]); // held, all of them
      const [again] = await take(["we_c"], T0 + 1001); // w2's lease ran out
      expect(again).toMatchObject({ id: "job_01aaaaaaaaaaaaaaaaaaaaaaa6", leaseOwner: "w1", attempts: 2 });
      expect(await take([], T0 + 2000)).toEqual([]);
      const stored = new Map((await s.inspect.work()).map((w) => [w.id, w]));
      expect(stored.get("job_01aaaaaaaaaaaaaaaaaaaaaaa1")).toMatchObject({ leaseOwner: "w1", leaseUntil: T0 + 1010, attempts: 1 });
      expect(stored.get("job_01aaaaaaaaaaaaaaaaaaaaaaa4")).toMatchObject({ leaseOwner: null, attempts: 0 });
      expect(stored.get("job_01aaaaaaaaaaaaaaaaaaaaaaa5")).toMatchObject({ leaseOwner: null, attempts: 0 });
    });

    it("never hands one item to two concurrent takers, nor one a claimer holds", async () => {
      const items = Array.from({ length: 40 }, (_, i) => ({
        ...work(`job_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0 + i),
        group: `we_${i % 2}`,
      }));
      await s.storage.transaction((tx) => tx.work.enqueue(items));
      const results = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) =>
          s.storage.transaction((tx) =>
            tx.work.takeNext({ kind: "test.work", groups: ["we_0", "we_1", "we_0"], owner: `t${i}`, now: T0 + 100, leaseUntil: T0 + 60_000 }),
          ),
        ),
        ...Array.from({ length: 3 }, (_, i) => s.storage.claimDueWork({ now: T0 + 100, limit: 4, leaseMs: 60_000, owner: `c${i}` })),
      ]);
      const ids = results.flat().map((w) => w.id);
      expect(new Set(ids).size).toBe(ids.length);
      const leased = (await s.inspect.work()).filter((w) => w.leaseOwner !== null);
      expect(leased.map((w) => w.id).sort()).toEqual([...ids].sort());
    });

    // Concurrent claimers: adapters that run transactions one at a time must hold this too.
    it("keeps groups under groupLimit with concurrent claimers", async () => {
      const items = Array.from({ length: 60 }, (_, i) => ({
        ...work(`job_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0 + i),
        group: `we_${i % 3}`,
      }));
      await s.storage.transaction((tx) => tx.work.enqueue(items));
      for (let round = 0; round < 4; round++) {
        await Promise.all(
          Array.from({ length: 8 }, (_, i) => s.storage.claimDueWork({ now: T0 + 100, limit: 3, leaseMs: 60_000, owner: `w${round}_${i}`, groupLimit: 2 })),
        );
      }
      const leased = (await s.inspect.work()).filter((w) => w.leaseOwner !== null);
      const perGroup = new Map<string, number>();
      for (const w of leased) perGroup.set(w.group!, (perGroup.get(w.group!) ?? 0) + 1);
      expect([...perGroup.values()].every((n) => n <= 2)).toBe(true);
      expect(leased.length).toBeGreaterThan(0);
    });

    it("never gives one item to two concurrent claimers", async () => {
      const items = Array.from({ length: 60 }, (_, i) => work(`job_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0));
      await s.storage.transaction((tx) => tx.work.enqueue(items));
      const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => s.storage.claimDueWork({ now: T0, limit: 10, leaseMs: 60_000, owner: `w${i}` })));
      const ids = claims.flat().map((w) => w.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeLessThanOrEqual(60);
    });
  });
}

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type {
  BalanceRecord,
  DeliveryLogRecord,
  DueWorkRecord,
  EventRecord,
  IdempotencyRecord,
  LedgerEntryRecord,
  ReservationRecord,
  ResourceRecord,
  StorageAdapter,
  StorageCapabilities,
} from "../ports/storage";

/**
 * An independent read path into what an adapter stored: raw rows, read without going through
 * the adapter's own `StorageTx` code, so the suite checks what was really written.
 */
export interface StorageInspector {
  balances(accountId: string): Promise<BalanceRecord[]>;
  entries(accountId: string): Promise<LedgerEntryRecord[]>;
  reservations(accountId: string): Promise<ReservationRecord[]>;
  resources(accountId: string): Promise<ResourceRecord[]>;
  events(accountId: string): Promise<EventRecord[]>;
  idempotencyKeys(accountId: string): Promise<IdempotencyRecord[]>;
  work(): Promise<DueWorkRecord[]>;
  deliveries(accountId: string): Promise<DeliveryLogRecord[]>;
}

export interface StorageHarness {
  /** A fresh adapter with empty storage, not yet initialised. */
  storage: StorageAdapter;
  inspect: StorageInspector;
  /** Releases what the factory made (e.g. drops the test schema). */
  close(): Promise<void>;
}

export interface StorageConformanceOptions {
  name: string;
  /** Returns a fresh, isolated adapter each call. */
  factory: () => Promise<StorageHarness>;
  /** Abilities the adapter declares; tests needing one it lacks are skipped with the reason. */
  capabilities?: Partial<StorageCapabilities>;
}

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

/**
 * The storage conformance suite: every storage adapter must pass it. Register it from a vitest
 * file: `storageConformance({ name: "mine", factory })`.
 */
export function storageConformance(options: StorageConformanceOptions): void {
  const caps = options.capabilities ?? {};
  describe(`storage conformance: ${options.name}`, () => {
    let h: StorageHarness;
    let storage: StorageAdapter;
    beforeEach(async () => {
      h = await options.factory();
      storage = h.storage;
      await storage.init();
    });
    afterEach(async () => {
      await storage.close();
      await h.close();
    });

    const account = (id: string) => ({ id, name: id, livemode: false, settings: {}, created: T0 });

    it("init can run again on an initialised store", async () => {
      await storage.init();
      await storage.transaction((tx) => tx.accounts.insertAccount(account("acct_a")));
      expect(await storage.transaction((tx) => tx.accounts.getAccount("acct_a"))).toMatchObject({ id: "acct_a" });
    });

    it("commits what a transaction wrote and rolls back what a throwing one wrote", async () => {
      const boom = new Error("boom");
      await storage.transaction((tx) => tx.accounts.insertAccount(account("acct_a")));
      const thrown = await storage
        .transaction(async (tx) => {
          await tx.ledger.lockBalances(keysOf("acct_a", ["available", "counter:external"]));
          await tx.ledger.appendEntries(entries("acct_a", [["available", 5n], ["counter:external", -5n]]));
          await tx.events.insert([event("acct_a", "evt_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
          await tx.resources.insert([resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
          await tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
          await tx.deliveries.insert([delivery("acct_a", "dlv_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
          throw boom;
        })
        .catch((e: unknown) => e);
      expect(thrown).toBe(boom);
      expect(await h.inspect.entries("acct_a")).toEqual([]);
      expect((await h.inspect.balances("acct_a")).filter((b) => b.amount !== 0n)).toEqual([]);
      expect(await h.inspect.events("acct_a")).toEqual([]);
      expect(await h.inspect.resources("acct_a")).toEqual([]);
      expect(await h.inspect.work()).toEqual([]);
      expect(await h.inspect.deliveries("acct_a")).toEqual([]);
    });

    describe("accounts and API keys", () => {
      it("stores accounts and finds keys by hash only", async () => {
        await storage.transaction(async (tx) => {
          await tx.accounts.insertAccount(account("acct_a"));
          await tx.accounts.updateAccountSettings("acct_a", { policy: { max: "10" } });
        });
        const key = { hash: "ab".repeat(32), accountId: "acct_a", livemode: false, scopes: ["payouts:write"], redacted: "sk_test_…abcd", created: T0 };
        expect(await storage.transaction((tx) => tx.accounts.insertApiKey(key))).toBe(true);
        expect(await storage.transaction((tx) => tx.accounts.insertApiKey({ ...key, accountId: "acct_a" }))).toBe(false);
        expect(await storage.transaction((tx) => tx.accounts.findApiKey(key.hash))).toEqual(key);
        expect(await storage.transaction((tx) => tx.accounts.findApiKey("cd".repeat(32)))).toBeNull();
        expect(await storage.transaction((tx) => tx.accounts.getAccount("acct_a"))).toEqual({
          ...account("acct_a"),
          settings: { policy: { max: "10" } },
        });
      });
    });

    describe("ledger", () => {
      it("locks whole assets: returns every row of each named (account, asset), in key order", async () => {
        await storage.transaction((tx) =>
          tx.ledger.lockBalances([
            { accountId: "acct_a", asset: "USDC", chain: "polygon", book: "pending" },
            { accountId: "acct_b", asset: "USDC", chain: "base", book: "available" },
          ]),
        );
        const rows = await storage.transaction((tx) =>
          tx.ledger.lockBalances([{ accountId: "acct_a", asset: "USDC", chain: "base", book: "available" }]),
        );
        expect(rows.map((b) => `${b.accountId}/${b.chain}/${b.book}`)).toEqual(["acct_a/base/available", "acct_a/polygon/pending"]);
      });

      it("creates missing balance rows at zero and returns every locked key in key order", async () => {
        const keys = [
          { accountId: "acct_a", asset: "USDC", chain: "solana", book: "reserved" as const },
          { accountId: "acct_a", asset: "ETH", chain: "base", book: "available" as const },
          { accountId: "acct_a", asset: "USDC", chain: "base", book: "available" as const },
        ];
        const locked = await storage.transaction((tx) => tx.ledger.lockBalances(keys));
        expect(locked.map((b) => `${b.asset}/${b.chain}/${b.book}=${b.amount}`)).toEqual([
          "ETH/base/available=0",
          "USDC/base/available=0",
          "USDC/solana/reserved=0",
        ]);
        expect(await h.inspect.balances("acct_a")).toHaveLength(3);
      });

      it("appends entries and moves balances by exactly their sum", async () => {
        await storage.transaction(async (tx) => {
          await tx.ledger.lockBalances(keysOf("acct_a", ["available", "counter:external", "reserved"]));
          await tx.ledger.appendEntries(entries("acct_a", [["available", 100n], ["counter:external", -100n]]));
          await tx.ledger.appendEntries(entries("acct_a", [["available", -30n], ["reserved", 30n]], 10));
          // reads inside the transaction see the writes before them
          const inside = await tx.ledger.listBalances("acct_a");
          expect(Object.fromEntries(inside.map((b) => [b.book, b.amount]))).toEqual({
            available: 70n,
            reserved: 30n,
            "counter:external": -100n,
          });
        });
        const stored = await h.inspect.entries("acct_a");
        expect(stored).toHaveLength(4);
        const sums = new Map<string, bigint>();
        for (const e of stored) sums.set(e.book, (sums.get(e.book) ?? 0n) + e.amount);
        for (const b of await h.inspect.balances("acct_a")) expect(b.amount).toBe(sums.get(b.book) ?? 0n);
        expect(stored.reduce((a, e) => a + e.amount, 0n)).toBe(0n);
        const viaAdapter = await storage.transaction((tx) => tx.ledger.listEntries("acct_a", { resource: "po_1" }));
        expect(viaAdapter.map((e) => e.id).sort()).toEqual(stored.map((e) => e.id).sort());
        const byIds = await storage.transaction((tx) => tx.ledger.listEntries("acct_a", { ids: [stored[0]!.id] }));
        expect(byIds).toEqual([stored[0]]);
      });

      it("refuses (throws) entries that take a customer book below zero, and keeps nothing", async () => {
        const failed = await storage
          .transaction(async (tx) => {
            await tx.ledger.lockBalances(keysOf("acct_a", ["available", "counter:external"]));
            await tx.ledger.appendEntries(entries("acct_a", [["available", -1n], ["counter:external", 1n]]));
            await tx.ledger.listBalances("acct_a"); // forces buffered writes out
          })
          .then(
            () => "committed",
            () => "refused",
          );
        expect(failed).toBe("refused");
        expect(await h.inspect.entries("acct_a")).toEqual([]);
      });

      it("stores, locks and updates reservations", async () => {
        const r: ReservationRecord = {
          id: "rsv_01aaaaaaaaaaaaaaaaaaaaaaaa",
          accountId: "acct_a",
          asset: "USDC",
          chain: "base",
          amount: 50n,
          remaining: 50n,
          status: "active",
          resource: "lo_1",
          created: T0,
          resolvedAt: null,
        };
        await storage.transaction((tx) => tx.ledger.insertReservation(r));
        await storage.transaction(async (tx) => {
          const locked = await tx.ledger.lockReservation("acct_a", r.id);
          expect(locked).toEqual(r);
          await tx.ledger.updateReservation({ ...r, remaining: 0n, status: "resolved", resolvedAt: T0 + 5 });
        });
        expect(await h.inspect.reservations("acct_a")).toEqual([{ ...r, remaining: 0n, status: "resolved", resolvedAt: T0 + 5 }]);
        expect(await storage.transaction((tx) => tx.ledger.lockReservation("acct_b", r.id))).toBeNull();
      });
    });

    describe("resources and the keyset list", () => {
      it("gets, and updates only from the version it read", async () => {
        const r = resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaaa", T0);
        await storage.transaction(async (tx) => {
          await tx.resources.insert([r]);
          expect(await tx.resources.get("acct_a", r.id)).toEqual(r); // visible inside the transaction
        });
        const next = { ...r, status: "settled", data: { n: 2 }, version: 2, updated: T0 + 1 };
        expect(await storage.transaction((tx) => tx.resources.update(next))).toBe(true);
        expect(await storage.transaction((tx) => tx.resources.update({ ...next, data: { n: 3 } }))).toBe(false);
        expect(await storage.transaction((tx) => tx.resources.get("acct_a", r.id, { lock: true }))).toEqual(next);
        expect(await storage.transaction((tx) => tx.resources.get("acct_b", r.id))).toBeNull();
        expect(await h.inspect.resources("acct_a")).toEqual([next]);
        expect(await storage.transaction((tx) => tx.resources.delete("acct_b", r.id))).toBe(false);
        expect(await storage.transaction((tx) => tx.resources.delete("acct_a", r.id))).toBe(true);
        expect(await h.inspect.resources("acct_a")).toEqual([]);
        expect(await storage.transaction((tx) => tx.resources.delete("acct_a", r.id))).toBe(false);
      });

      it("reads many by id at once, only of the account", async () => {
        const a = resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaa1", T0);
        const b = resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 1);
        const c = resource("acct_b", "po_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 2);
        await storage.transaction((tx) => tx.resources.insert([a, b, c]));
        const many = await storage.transaction((tx) => tx.resources.getMany("acct_a", [b.id, c.id, "po_missing", a.id]));
        expect(many.map((r) => r.id).sort()).toEqual([a.id, b.id]);
        expect(await storage.transaction((tx) => tx.resources.getMany("acct_a", []))).toEqual([]);
      });

      it("deletes a resource of the account only, and says whether there was one", async () => {
        const r = resource("acct_a", "we_01aaaaaaaaaaaaaaaaaaaaaaaa", T0);
        await storage.transaction((tx) => tx.resources.insert([r]));
        expect(await storage.transaction((tx) => tx.resources.delete("acct_b", r.id))).toBe(false);
        expect(await h.inspect.resources("acct_a")).toEqual([r]);
        await storage
          .transaction(async (tx) => {
            expect(await tx.resources.delete("acct_a", r.id)).toBe(true);
            expect(await tx.resources.get("acct_a", r.id)).toBeNull();
            throw new Error("roll back");
          })
          .catch(() => undefined);
        expect(await h.inspect.resources("acct_a")).toEqual([r]);
        expect(await storage.transaction((tx) => tx.resources.delete("acct_a", r.id))).toBe(true);
        expect(await storage.transaction((tx) => tx.resources.delete("acct_a", r.id))).toBe(false);
        expect(await h.inspect.resources("acct_a")).toEqual([]);
      });

      it("walks a list newest first, every row once, with filters", async () => {
        const rows: ResourceRecord[] = [];
        for (let i = 0; i < 23; i++) {
          rows.push({
            ...resource("acct_a", `po_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0 + Math.floor(i / 3) * 1000),
            status: i % 2 ? "settled" : "created",
            reference: i % 5 === 0 ? `inv_${i}` : `ref_${i}`,
          });
        }
        const other = { ...resource("acct_b", "po_01bbbbbbbbbbbbbbbbbbbbbbbb", T0), reference: "inv_0" };
        const otherKind = { ...resource("acct_a", "rcp_01aaaaaaaaaaaaaaaaaaaaaaaa", T0), kind: "recipient" };
        await storage.transaction((tx) => tx.resources.insert([...rows, other, otherKind]));
        const expected = [...rows].sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1)).map((r) => r.id);

        const seen: string[] = [];
        let after: { created: number; id: string } | undefined;
        for (;;) {
          const page = await storage.transaction((tx) =>
            tx.resources.list({ accountId: "acct_a", kind: "payout", limit: 7, ...(after ? { after } : {}) }),
          );
          seen.push(...page.map((r) => r.id));
          if (page.length < 7) break;
          after = { created: page[6]!.created, id: page[6]!.id };
        }
        expect(seen).toEqual(expected);

        const list = (q: Record<string, unknown>) =>
          storage.transaction((tx) => tx.resources.list({ accountId: "acct_a", kind: "payout", limit: 100, ...q }));
        expect((await list({ status: "settled" })).every((r) => r.status === "settled")).toBe(true);
        expect(await list({ status: "settled" })).toHaveLength(11);
        expect((await list({ createdGte: T0 + 1000, createdLt: T0 + 3000 })).map((r) => r.id)).toEqual(
          expected.filter((id) => {
            const c = rows.find((r) => r.id === id)!.created;
            return c >= T0 + 1000 && c < T0 + 3000;
          }),
        );
        expect((await list({ search: "inv_" })).map((r) => r.reference).sort()).toEqual(
          ["inv_0", "inv_10", "inv_15", "inv_20", "inv_5"].sort(),
        );
        expect((await list({ search: "inv_1" })).map((r) => r.reference).sort()).toEqual(["inv_10", "inv_15"]);
        expect((await list({ search: rows[4]!.id })).map((r) => r.id)).toEqual([rows[4]!.id]);
        expect(await list({ search: "po_01aaaa" })).toEqual([]); // ids match exactly, not by prefix
        expect(await list({ search: "%" })).toEqual([]); // LIKE wildcards are literal
      });
    });

    describe("events", () => {
      it("stores, gets, lists by type and prunes by age", async () => {
        const e1 = event("acct_a", "evt_01aaaaaaaaaaaaaaaaaaaaaaa1", T0);
        const e2 = { ...event("acct_a", "evt_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 10), type: "payout.created" };
        const e3 = event("acct_b", "evt_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 20);
        await storage.transaction((tx) => tx.events.insert([e1, e2, e3]));
        expect(await storage.transaction((tx) => tx.events.get("acct_a", e2.id))).toEqual(e2);
        expect(await storage.transaction((tx) => tx.events.get("acct_b", e2.id))).toBeNull();
        const many = await storage.transaction((tx) => tx.events.getMany("acct_a", [e2.id, e3.id, "evt_missing", e1.id]));
        expect(many.sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([e1, e2]); // e3 is another account's
        expect(await storage.transaction((tx) => tx.events.getMany("acct_a", []))).toEqual([]);
        const all = await storage.transaction((tx) => tx.events.list({ accountId: "acct_a", limit: 10 }));
        expect(all.map((e) => e.id)).toEqual([e2.id, e1.id]);
        const typed = await storage.transaction((tx) => tx.events.list({ accountId: "acct_a", status: "payout.created", limit: 10 }));
        expect(typed.map((e) => e.id)).toEqual([e2.id]);
        expect(await storage.transaction((tx) => tx.events.pruneBefore(T0 + 15, 100))).toBe(2);
        expect((await h.inspect.events("acct_a")).length).toBe(0);
        expect(await h.inspect.events("acct_b")).toEqual([e3]);
      });
    });

    describe("webhook delivery log", () => {
      it("stores attempts, lists one endpoint's newest first with a status filter, and prunes by age", async () => {
        const rows: DeliveryLogRecord[] = [];
        for (let i = 0; i < 9; i++) {
          rows.push({
            ...delivery("acct_a", `dlv_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0 + Math.floor(i / 2) * 1000),
            endpointId: i % 3 === 2 ? "we_2" : "we_1",
            status: i % 2 ? "succeeded" : "failed",
            responseStatus: i % 2 ? 200 : null,
            error: i % 2 ? null : "timeout",
            nextAttemptAt: i % 2 ? null : T0 + 5_000,
          });
        }
        const foreign = { ...delivery("acct_b", "dlv_01bbbbbbbbbbbbbbbbbbbbbbbb", T0), endpointId: "we_1" };
        await storage.transaction((tx) => tx.deliveries.insert([...rows, foreign]));
        const mine = rows.filter((r) => r.endpointId === "we_1");
        const expected = [...mine].sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));

        const seen: DeliveryLogRecord[] = [];
        let after: { created: number; id: string } | undefined;
        for (;;) {
          const page = await storage.transaction((tx) =>
            tx.deliveries.list({ accountId: "acct_a", endpointId: "we_1", limit: 2, ...(after ? { after } : {}) }),
          );
          seen.push(...page);
          if (page.length < 2) break;
          after = { created: page[1]!.created, id: page[1]!.id };
        }
        expect(seen).toEqual(expected);
        const failed = await storage.transaction((tx) =>
          tx.deliveries.list({ accountId: "acct_a", endpointId: "we_1", status: "failed", limit: 100 }),
        );
        expect(failed.map((r) => r.id)).toEqual(expected.filter((r) => r.status === "failed").map((r) => r.id));
        const ranged = await storage.transaction((tx) =>
          tx.deliveries.list({ accountId: "acct_a", endpointId: "we_1", createdGte: T0 + 1000, createdLt: T0 + 3000, limit: 100 }),
        );
        expect(ranged.map((r) => r.id)).toEqual(expected.filter((r) => r.created >= T0 + 1000 && r.created < T0 + 3000).map((r) => r.id));
        expect(await h.inspect.deliveries("acct_b")).toEqual([foreign]);

        expect(await storage.transaction((tx) => tx.deliveries.pruneBefore(T0 + 2000, 100))).toBe(5);
        expect((await h.inspect.deliveries("acct_a")).map((r) => r.id).sort()).toEqual(
          rows.filter((r) => r.created >= T0 + 2000).map((r) => r.id).sort(),
        );
      });
    });

    describe("idempotency keys", () => {
      it("claims once, then returns the existing row; puts, deletes and prunes", async () => {
        const rec: IdempotencyRecord = {
          accountId: "acct_a",
          key: "k-1",
          fingerprint: "f1",
          lockedAt: T0,
          response: null,
          created: T0,
          expiresAt: T0 + 1000,
        };
        expect(await storage.transaction((tx) => tx.idempotency.claim(rec))).toEqual({ inserted: true });
        expect(await storage.transaction((tx) => tx.idempotency.claim({ ...rec, fingerprint: "f2" }))).toEqual({
          inserted: false,
          existing: rec,
        });
        const done = { ...rec, lockedAt: null, response: { status: 200, body: { id: "x", n: [1, 2] } } };
        await storage.transaction((tx) => tx.idempotency.put(done));
        expect(await h.inspect.idempotencyKeys("acct_a")).toEqual([done]);
        expect(await storage.transaction((tx) => tx.idempotency.claim({ ...rec, accountId: "acct_b" }))).toEqual({
          inserted: true,
        });
        await storage.transaction((tx) => tx.idempotency.delete("acct_b", "k-1"));
        expect(await h.inspect.idempotencyKeys("acct_b")).toEqual([]);
        expect(await storage.transaction((tx) => tx.idempotency.pruneExpired(T0 + 999, 10))).toBe(0);
        expect(await storage.transaction((tx) => tx.idempotency.pruneExpired(T0 + 1000, 10))).toBe(1);
        expect(await h.inspect.idempotencyKeys("acct_a")).toEqual([]);
      });
    });

    describe("due work", () => {
      it("skips a duplicate dedupe key and claims only what is due, oldest first", async () => {
        await storage.transaction((tx) =>
          tx.work.enqueue([
            work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0 + 50, "d1"),
            work("job_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 10),
            work("job_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 5000),
          ]),
        );
        await storage.transaction((tx) => tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaa4", T0, "d1")]));
        expect((await h.inspect.work()).map((w) => w.id).sort()).toEqual([
          "job_01aaaaaaaaaaaaaaaaaaaaaaa1",
          "job_01aaaaaaaaaaaaaaaaaaaaaaa2",
          "job_01aaaaaaaaaaaaaaaaaaaaaaa3",
        ]);
        expect(await storage.transaction((tx) => tx.work.nextRunAt())).toBe(T0 + 10);
        const claimed = await storage.claimDueWork({ now: T0 + 100, limit: 10, leaseMs: 1000, owner: "w1" });
        expect(claimed.map((w) => w.id)).toEqual(["job_01aaaaaaaaaaaaaaaaaaaaaaa2", "job_01aaaaaaaaaaaaaaaaaaaaaaa1"]);
        expect(claimed.every((w) => w.leaseOwner === "w1" && w.leaseUntil === T0 + 1100 && w.attempts === 1)).toBe(true);
        // leased: nobody else gets them while the lease holds
        expect(await storage.claimDueWork({ now: T0 + 200, limit: 10, leaseMs: 1000, owner: "w2" })).toEqual([]);
        expect(await storage.transaction((tx) => tx.work.nextRunAt())).toBe(T0 + 1100);
      });

      it("hands an item whose lease expired to another worker, and ignores the first one after", async () => {
        await storage.transaction((tx) => tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0)]));
        const [first] = await storage.claimDueWork({ now: T0, limit: 1, leaseMs: 1000, owner: "w1" });
        expect(first?.attempts).toBe(1);
        const [again] = await storage.claimDueWork({ now: T0 + 1000, limit: 1, leaseMs: 1000, owner: "w2" });
        expect(again).toMatchObject({ id: first!.id, leaseOwner: "w2", attempts: 2 });
        expect(await storage.transaction((tx) => tx.work.complete(first!.id, "w1"))).toBe(false);
        expect(await storage.transaction((tx) => tx.work.complete(first!.id, "w2"))).toBe(true);
        expect(await h.inspect.work()).toEqual([]);
      });

      it("releases for a retry, resets attempts on reschedule, and never claims dead items", async () => {
        await storage.transaction((tx) => tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0, "d-dead")]));
        await storage.claimDueWork({ now: T0, limit: 1, leaseMs: 1000, owner: "w1" });
        expect(
          await storage.transaction((tx) =>
            tx.work.release("job_01aaaaaaaaaaaaaaaaaaaaaaa1", "w1", { runAt: T0 + 500, lastError: "nope" }),
          ),
        ).toBe(true);
        const [stored] = await h.inspect.work();
        expect(stored).toMatchObject({ runAt: T0 + 500, lastError: "nope", leaseOwner: null, attempts: 1, status: "ready" });
        await storage.claimDueWork({ now: T0 + 500, limit: 1, leaseMs: 1000, owner: "w1" });
        await storage.transaction((tx) =>
          tx.work.release("job_01aaaaaaaaaaaaaaaaaaaaaaa1", "w1", { runAt: T0 + 600, lastError: null, resetAttempts: true }),
        );
        expect((await h.inspect.work())[0]).toMatchObject({ attempts: 0, runAt: T0 + 600 });
        await storage.claimDueWork({ now: T0 + 600, limit: 1, leaseMs: 1000, owner: "w1" });
        await storage.transaction((tx) =>
          tx.work.release("job_01aaaaaaaaaaaaaaaaaaaaaaa1", "w1", { runAt: T0 + 700, lastError: "gave up", dead: true }),
        );
        expect(await storage.claimDueWork({ now: T0 + 10_000, limit: 1, leaseMs: 1000, owner: "w1" })).toEqual([]);
        expect(await storage.transaction((tx) => tx.work.nextRunAt())).toBeNull();
        expect(await storage.transaction((tx) => tx.work.get("job_01aaaaaaaaaaaaaaaaaaaaaaa1"))).toMatchObject({
          status: "dead",
          lastError: "gave up",
          dedupeKey: null,
        });
        // the dead item gave its dedupe key up: the same work can be scheduled again
        await storage.transaction((tx) => tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaa2", T0, "d-dead")]));
        expect((await h.inspect.work()).map((w) => w.id).sort()).toEqual(["job_01aaaaaaaaaaaaaaaaaaaaaaa1", "job_01aaaaaaaaaaaaaaaaaaaaaaa2"]);
      });

      it("completes and releases many items of one owner at once, leaving others' alone", async () => {
        const items = Array.from({ length: 5 }, (_, i) => work(`job_01aaaaaaaaaaaaaaaaaaaaaaa${i}`, T0));
        await storage.transaction((tx) => tx.work.enqueue(items));
        const mine = await storage.claimDueWork({ now: T0, limit: 4, leaseMs: 1000, owner: "w1" });
        const [theirs] = await storage.claimDueWork({ now: T0, limit: 1, leaseMs: 1000, owner: "w2" });
        const [a, b, c, d] = mine.map((w) => w.id) as [string, string, string, string];
        const completed = await storage.transaction((tx) => tx.work.completeMany([a, b, theirs!.id], "w1"));
        expect(completed.sort()).toEqual([a, b].sort());
        const released = await storage.transaction((tx) =>
          tx.work.releaseMany("w1", [
            { id: c, runAt: T0 + 500, lastError: "HTTP 500" },
            { id: d, runAt: T0 + 700, lastError: null },
            { id: theirs!.id, runAt: T0 + 900, lastError: "not mine" },
          ]),
        );
        expect(released.sort()).toEqual([c, d].sort());
        const left = new Map((await h.inspect.work()).map((w) => [w.id, w]));
        expect(left.has(a) || left.has(b)).toBe(false);
        expect(left.get(c)).toMatchObject({ runAt: T0 + 500, lastError: "HTTP 500", leaseOwner: null, leaseUntil: null, attempts: 1, status: "ready" });
        expect(left.get(d)).toMatchObject({ runAt: T0 + 700, lastError: null, leaseOwner: null });
        expect(left.get(theirs!.id)).toMatchObject({ leaseOwner: "w2", runAt: T0 });
        expect(await storage.transaction((tx) => tx.work.completeMany([], "w1"))).toEqual([]);
        expect(await storage.transaction((tx) => tx.work.releaseMany("w1", []))).toEqual([]);
      });

      it("keeps an item's group and claims only the kinds a lane asks for", async () => {
        await storage.transaction((tx) =>
          tx.work.enqueue([
            { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa1", T0), kind: "a", group: "g1" },
            { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 1), kind: "b" },
            { ...work("job_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 2), kind: "c" },
          ]),
        );
        expect((await h.inspect.work()).map((w) => w.group ?? null)).toEqual(["g1", null, null]);
        const onlyA = await storage.claimDueWork({ now: T0 + 10, limit: 10, leaseMs: 1000, owner: "w1", onlyKinds: ["a"] });
        expect(onlyA.map((w) => [w.kind, w.group])).toEqual([["a", "g1"]]);
        const notC = await storage.claimDueWork({ now: T0 + 10, limit: 10, leaseMs: 1000, owner: "w1", exceptKinds: ["c"] });
        expect(notC.map((w) => w.kind)).toEqual(["b"]);
        const rest = await storage.claimDueWork({ now: T0 + 10, limit: 10, leaseMs: 1000, owner: "w1", exceptKinds: [] });
        expect(rest.map((w) => w.kind)).toEqual(["c"]);
      });

      it("keeps each group under groupLimit leases, counting every holder, until leases end", async () => {
        const items: DueWorkRecord[] = [];
        for (let i = 0; i < 10; i++) {
          const group = i < 5 ? "we_a" : i < 8 ? "we_b" : null;
          items.push({ ...work(`job_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0 + i), group });
        }
        await storage.transaction((tx) => tx.work.enqueue(items));
        const claim = (owner: string, now: number, limit = 10) =>
          storage.claimDueWork({ now, limit, leaseMs: 1000, owner, groupLimit: 2 });
        const groupsOf = (ws: DueWorkRecord[]) => ws.map((w) => w.group ?? "-").sort();
        const first = await claim("w1", T0 + 100);
        expect(groupsOf(first)).toEqual(["-", "-", "we_a", "we_a", "we_b", "we_b"]);
        expect(first.filter((w) => w.group === "we_a").map((w) => w.id)).toEqual([items[0]!.id, items[1]!.id]); // oldest first
        expect(await claim("w2", T0 + 200)).toEqual([]); // both groups are at their limit, whoever asks
        expect(await storage.transaction((tx) => tx.work.complete(first.find((w) => w.group === "we_a")!.id, "w1"))).toBe(true);
        expect(groupsOf(await claim("w2", T0 + 300))).toEqual(["we_a"]);
        // once the leases expire they no longer count: expired and waiting items share the limit again
        const later = await claim("w3", T0 + 1300, 10);
        expect(groupsOf(later)).toEqual(["-", "-", "we_a", "we_a", "we_b", "we_b"]);
      });

      it.skipIf(!caps.concurrentTransactions)(
        "keeps groups under groupLimit with concurrent claimers (needs concurrentTransactions)",
        async () => {
          const items = Array.from({ length: 60 }, (_, i) => ({
            ...work(`job_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0 + i),
            group: `we_${i % 3}`,
          }));
          await storage.transaction((tx) => tx.work.enqueue(items));
          for (let round = 0; round < 4; round++) {
            await Promise.all(
              Array.from({ length: 8 }, (_, i) =>
                storage.claimDueWork({ now: T0 + 100, limit: 3, leaseMs: 60_000, owner: `w${round}_${i}`, groupLimit: 2 }),
              ),
            );
          }
          const leased = (await h.inspect.work()).filter((w) => w.leaseOwner !== null);
          const perGroup = new Map<string, number>();
          for (const w of leased) perGroup.set(w.group!, (perGroup.get(w.group!) ?? 0) + 1);
          expect([...perGroup.values()].every((n) => n <= 2)).toBe(true);
          expect(leased.length).toBeGreaterThan(0);
        },
      );

      it.skipIf(!caps.concurrentTransactions)(
        "never gives one item to two concurrent claimers (needs concurrentTransactions)",
        async () => {
          const items = Array.from({ length: 60 }, (_, i) => work(`job_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0));
          await storage.transaction((tx) => tx.work.enqueue(items));
          const claims = await Promise.all(
            Array.from({ length: 6 }, (_, i) => storage.claimDueWork({ now: T0, limit: 10, leaseMs: 60_000, owner: `w${i}` })),
          );
          const ids = claims.flat().map((w) => w.id);
          expect(new Set(ids).size).toBe(ids.length);
          expect(ids.length).toBeLessThanOrEqual(60);
        },
      );
    });

    describe("rate limits", () => {
      it("counts hits per key and window, and prunes old windows", async () => {
        const hit = (key: string, window: number) => storage.transaction((tx) => tx.rateLimits.hit(key, window));
        expect(await hit("k1", T0)).toBe(1);
        expect(await hit("k1", T0)).toBe(2);
        expect(await hit("k2", T0)).toBe(1);
        expect(await hit("k1", T0 + 60_000)).toBe(1);
        expect(await storage.transaction((tx) => tx.rateLimits.pruneBefore(T0 + 60_000, 100))).toBe(2);
        expect(await hit("k1", T0)).toBe(1);
      });
    });

    describe("deposit addresses", () => {
      it("finds addresses on any chain, refuses a second record of one address on a chain", async () => {
        const evm = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
        const rec = (chain: string, address: string, resource: string) => ({ chain, address, accountId: "acct_a", resource, created: T0 });
        await storage.transaction((tx) =>
          tx.depositAddresses.insert([rec("base", evm, "pi_1"), rec("ethereum", evm, "pi_1"), rec("solana", "So1111", "pi_2")]),
        );
        const found = await storage.transaction((tx) => tx.depositAddresses.find([evm, "nowhere"]));
        expect(found.map((r) => `${r.chain}:${r.resource}`).sort()).toEqual(["base:pi_1", "ethereum:pi_1"]);
        expect(found[0]).toMatchObject({ address: evm, accountId: "acct_a", created: T0 });
        const twice = await storage
          .transaction((tx) => tx.depositAddresses.insert([rec("base", evm, "pi_3")]).then(() => tx.meta.get("x")))
          .then(
            () => "stored",
            () => "refused",
          );
        expect(twice).toBe("refused");
        expect(await storage.transaction((tx) => tx.depositAddresses.find([]))).toEqual([]);
      });
    });

    describe("meta", () => {
      it("keeps the first value of setIfAbsent and overwrites with set", async () => {
        expect(await storage.transaction((tx) => tx.meta.get("k"))).toBeNull();
        expect(await storage.transaction((tx) => tx.meta.setIfAbsent("k", "one"))).toBe("one");
        expect(await storage.transaction((tx) => tx.meta.setIfAbsent("k", "two"))).toBe("one");
        await storage.transaction((tx) => tx.meta.set("k", "three"));
        expect(await storage.transaction((tx) => tx.meta.get("k"))).toBe("three");
      });

      it("raises a number only upwards, atomically", async () => {
        expect(await storage.transaction((tx) => tx.meta.raise("n", 5))).toBe(5);
        expect(await storage.transaction((tx) => tx.meta.raise("n", 3))).toBe(5);
        await Promise.all([7, 9, 8, 6].map((v) => storage.transaction((tx) => tx.meta.raise("n", v))));
        expect(await storage.transaction((tx) => tx.meta.get("n"))).toBe("9");
      });
    });

    it.skipIf(!caps.concurrentTransactions)(
      "serialises concurrent writers of one balance row through its lock (needs concurrentTransactions)",
      async () => {
        const keys = keysOf("acct_a", ["available", "counter:external"]);
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            storage.transaction(async (tx) => {
              await tx.ledger.lockBalances(keys);
              await tx.ledger.appendEntries(entries("acct_a", [["available", 1n], ["counter:external", -1n]], i * 2));
            }),
          ),
        );
        const balances = await h.inspect.balances("acct_a");
        expect(balances.find((b) => b.book === "available")?.amount).toBe(40n);
        expect((await h.inspect.entries("acct_a")).length).toBe(80);
      },
    );
  });
}

function keysOf(accountId: string, books: BalanceRecord["book"][]) {
  return books.map((book) => ({ accountId, asset: "USDC", chain: "base", book }));
}

function entries(accountId: string, lines: [BalanceRecord["book"], bigint][], seq = 0): LedgerEntryRecord[] {
  return lines.map(([book, amount], i) => ({
    id: `le_01aaaaaaaaaaaaaaaaaaaaa${String(seq + i).padStart(3, "0")}`,
    accountId,
    postingId: `pst_01aaaaaaaaaaaaaaaaaaaaa${String(seq).padStart(3, "0")}`,
    asset: "USDC",
    chain: "base",
    book,
    amount,
    resource: "po_1",
    created: T0 + seq,
  }));
}

function event(accountId: string, id: string, created: number): EventRecord {
  return {
    accountId,
    id,
    type: "balance.updated",
    created,
    livemode: false,
    data: { object: { asset: "USDC", available: "1.5", chains: { base: { available: "1.5" } } } },
    request: { id: "req_1", idempotency_key: null },
  };
}

function resource(accountId: string, id: string, created: number): ResourceRecord {
  return {
    accountId,
    kind: "payout",
    id,
    created,
    status: "created",
    reference: null,
    data: { id, amount: "10", legs: [{ chain: "base" }] },
    version: 1,
    updated: created,
  };
}

function delivery(accountId: string, id: string, created: number): DeliveryLogRecord {
  return {
    accountId,
    id,
    endpointId: "we_1",
    eventId: "evt_01aaaaaaaaaaaaaaaaaaaaaaaa",
    eventType: "payout.created",
    attempt: 1,
    trigger: "scheduled",
    status: "succeeded",
    responseStatus: 200,
    latencyMs: 12,
    error: null,
    created,
    nextAttemptAt: null,
  };
}

function work(id: string, runAt: number, dedupeKey: string | null = null): DueWorkRecord {
  return {
    id,
    kind: "test.work",
    accountId: "acct_a",
    payload: { n: 1 },
    runAt,
    leaseOwner: null,
    leaseUntil: null,
    attempts: 0,
    lastError: null,
    status: "ready",
    dedupeKey,
    created: T0,
  };
}

import { describe, expect, it } from "vitest";
import type { BalanceRecord, LedgerEntryRecord, LedgerPageQuery, ReservationRecord } from "../../ports/storage";
import { type SuiteContext, T0, account, entries, keysOf } from "./fixtures";

export function ledgerSuite(s: SuiteContext): void {
  describe("ledger", () => {
    it("locks whole assets: returns every row of each named (account, asset), in key order", async () => {
      await s.storage.transaction((tx) =>
        tx.ledger.lockBalances([
          { accountId: "acct_a", asset: "USDC", chain: "polygon", book: "pending" },
          { accountId: "acct_b", asset: "USDC", chain: "base", book: "available" },
        ]),
      );
      const rows = await s.storage.transaction((tx) => tx.ledger.lockBalances([{ accountId: "acct_a", asset: "USDC", chain: "base", book: "available" }]));
      expect(rows.map((b) => `${b.accountId}/${b.chain}/${b.book}`)).toEqual(["acct_a/base/available", "acct_a/polygon/pending"]);
    });

    it("creates missing balance rows at zero and returns every locked key in key order", async () => {
      const keys = [
        { accountId: "acct_a", asset: "USDC", chain: "solana", book: "reserved" as const },
        { accountId: "acct_a", asset: "ETH", chain: "base", book: "available" as const },
        { accountId: "acct_a", asset: "USDC", chain: "base", book: "available" as const },
      ];
      const locked = await s.storage.transaction((tx) => tx.ledger.lockBalances(keys));
      expect(locked.map((b) => `${b.asset}/${b.chain}/${b.book}=${b.amount}`)).toEqual([
        "ETH/base/available=0",
        "USDC/base/available=0",
        "USDC/solana/reserved=0",
      ]);
      expect(await s.inspect.balances("acct_a")).toHaveLength(3);
    });

    it("appends entries and moves balances by exactly their sum", async () => {
      await s.storage.transaction(async (tx) => {
        await tx.ledger.lockBalances(keysOf("acct_a", ["available", "counter:external", "reserved"]));
        await tx.ledger.appendEntries(
          entries("acct_a", [
            ["available", 100n],
            ["counter:external", -100n],
          ]),
        );
        await tx.ledger.appendEntries(
          entries(
            "acct_a",
            [
              ["available", -30n],
              ["reserved", 30n],
            ],
            10,
          ),
        );
        // reads inside the transaction see the writes before them
        const inside = await tx.ledger.listBalances("acct_a");
        expect(Object.fromEntries(inside.map((b) => [b.book, b.amount]))).toEqual({
          available: 70n,
          reserved: 30n,
          "counter:external": -100n,
        });
      });
      const stored = await s.inspect.entries("acct_a");
      expect(stored).toHaveLength(4);
      const sums = new Map<string, bigint>();
      for (const e of stored) sums.set(e.book, (sums.get(e.book) ?? 0n) + e.amount);
      for (const b of await s.inspect.balances("acct_a")) expect(b.amount).toBe(sums.get(b.book) ?? 0n);
      expect(stored.reduce((a, e) => a + e.amount, 0n)).toBe(0n);
      const viaAdapter = await s.storage.transaction((tx) => tx.ledger.listEntries("acct_a", { resource: "po_1" }));
      expect(viaAdapter.map((e) => e.id).sort()).toEqual(stored.map((e) => e.id).sort());
      const byIds = await s.storage.transaction((tx) => tx.ledger.listEntries("acct_a", { ids: [stored[0]!.id] }));
      expect(byIds).toEqual([stored[0]]);
    });

    it("refuses (throws) entries that take a customer book below zero, and keeps nothing", async () => {
      const failed = await s.storage
        .transaction(async (tx) => {
          await tx.ledger.lockBalances(keysOf("acct_a", ["available", "counter:external"]));
          await tx.ledger.appendEntries(
            entries("acct_a", [
              ["available", -1n],
              ["counter:external", 1n],
            ]),
          );
          await tx.ledger.listBalances("acct_a"); // forces buffered writes out
        })
        .then(
          () => "committed",
          () => "refused",
        );
      expect(failed).toBe("refused");
      expect(await s.inspect.entries("acct_a")).toEqual([]);
    });

    it("refuses (throws) a posting line that exists already, keeping the first and nothing of the second", async () => {
      const keys = keysOf("acct_a", ["available", "counter:external"]);
      const first = entries("acct_a", [
        ["available", 5n],
        ["counter:external", -5n],
      ]);
      await s.storage.transaction(async (tx) => {
        await tx.ledger.lockBalances(keys);
        await tx.ledger.appendEntries(first);
      });
      // the same posting id and lines again, under new entry ids: a transition applied twice
      const again = first.map((e, i) => ({ ...e, id: `le_01bbbbbbbbbbbbbbbbbbbbb00${i}` }));
      const outcome = await s.storage
        .transaction(async (tx) => {
          await tx.ledger.lockBalances(keys);
          await tx.ledger.appendEntries(again);
          await tx.ledger.listBalances("acct_a"); // forces buffered writes out
        })
        .then(
          () => "committed",
          () => "refused",
        );
      expect(outcome).toBe("refused");
      expect((await s.inspect.entries("acct_a")).map((e) => e.id)).toEqual(first.map((e) => e.id));
      expect((await s.inspect.balances("acct_a")).find((b) => b.book === "available")?.amount).toBe(5n);
      // the same posting in another account is another posting
      await s.storage.transaction(async (tx) => {
        await tx.ledger.lockBalances(keysOf("acct_b", ["available", "counter:external"]));
        await tx.ledger.appendEntries(
          entries("acct_b", [
            ["available", 5n],
            ["counter:external", -5n],
          ]),
        );
      });
      expect(await s.inspect.entries("acct_b")).toHaveLength(2);
    });

    it("sums the books of every account of one mode on one chain, per asset and book, and lists their active reservations (reconciliation)", async () => {
      await s.storage.transaction(async (tx) => {
        await tx.accounts.insertAccount(account("acct_a"));
        await tx.accounts.insertAccount(account("acct_b"));
        await tx.accounts.insertAccount({ ...account("acct_l"), livemode: true });
      });
      const fund = (accountId: string, chain: string, asset: string, amount: bigint, seq: number) =>
        s.storage.transaction(async (tx) => {
          const lines: [BalanceRecord["book"], bigint][] = [
            ["available", amount],
            ["counter:inbound", -amount],
          ];
          await tx.ledger.lockBalances(lines.map(([book]) => ({ accountId, asset, chain, book })));
          await tx.ledger.appendEntries(entries(accountId, lines, seq).map((e) => ({ ...e, asset, chain })));
        });
      await fund("acct_a", "base", "USDC", 70n, 0);
      await fund("acct_b", "base", "USDC", 5n, 10);
      await fund("acct_b", "base", "ETH", 9n, 20);
      await fund("acct_a", "solana", "USDC", 1_000n, 30); // another chain
      await fund("acct_l", "base", "USDC", 400n, 40); // another mode
      const totals = await s.storage.transaction((tx) => tx.ledger.listBalanceTotals({ livemode: false, chain: "base" }));
      expect(totals.map((t) => `${t.asset}/${t.book}=${t.amount}`)).toEqual([
        "ETH/available=9",
        "ETH/counter:inbound=-9",
        "USDC/available=75",
        "USDC/counter:inbound=-75",
      ]);
      expect(await s.storage.transaction((tx) => tx.ledger.listBalanceTotals({ livemode: true, chain: "base" }))).toEqual([
        { asset: "USDC", book: "available", amount: 400n },
        { asset: "USDC", book: "counter:inbound", amount: -400n },
      ]);
      expect(await s.storage.transaction((tx) => tx.ledger.listBalanceTotals({ livemode: true, chain: "polygon" }))).toEqual([]);
      const active = { ...reservation("rsv_01aaaaaaaaaaaaaaaaaaaaaa01", 10n), resource: "po_a" };
      const resolved = { ...reservation("rsv_01aaaaaaaaaaaaaaaaaaaaaa02", 10n), status: "resolved" as const, remaining: 0n, resolvedAt: T0 };
      const elsewhere = { ...reservation("rsv_01aaaaaaaaaaaaaaaaaaaaaa03", 10n), chain: "solana" };
      const live = { ...reservation("rsv_01aaaaaaaaaaaaaaaaaaaaaa04", 10n), accountId: "acct_l" };
      const other = { ...reservation("rsv_01aaaaaaaaaaaaaaaaaaaaaa00", 3n), accountId: "acct_b", resource: "sw_b" };
      await s.storage.transaction((tx) => tx.ledger.insertReservations([active, resolved, elsewhere, live, other]));
      expect(await s.storage.transaction((tx) => tx.ledger.listActiveReservations({ livemode: false, chain: "base" }))).toEqual([active, other]);
      expect(await s.storage.transaction((tx) => tx.ledger.listActiveReservations({ livemode: true, chain: "base" }))).toEqual([live]);
      // a reservation resolved later is no longer listed
      await s.storage.transaction(async (tx) => {
        await tx.ledger.lockReservation("acct_a", active.id);
        await tx.ledger.updateReservation({ ...active, remaining: 0n, status: "resolved", resolvedAt: T0 + 1 });
      });
      expect(await s.storage.transaction((tx) => tx.ledger.listActiveReservations({ livemode: false, chain: "base" }))).toEqual([other]);
    });

    it("stores, locks and updates reservations", async () => {
      const r = { ...reservation("rsv_01aaaaaaaaaaaaaaaaaaaaaaaa", 50n), resource: "lo_1" };
      await s.storage.transaction((tx) => tx.ledger.insertReservations([r]));
      await s.storage.transaction(async (tx) => {
        const locked = await tx.ledger.lockReservation("acct_a", r.id);
        expect(locked).toEqual(r);
        await tx.ledger.updateReservation({ ...r, remaining: 0n, status: "resolved", resolvedAt: T0 + 5 });
      });
      expect(await s.inspect.reservations("acct_a")).toEqual([{ ...r, remaining: 0n, status: "resolved", resolvedAt: T0 + 5 }]);
      expect(await s.storage.transaction((tx) => tx.ledger.lockReservation("acct_b", r.id))).toBeNull();
    });

    it("inserts many reservations in one call, and refuses an id that exists (the transaction keeps nothing)", async () => {
      const rs = Array.from({ length: 300 }, (_, i) => ({
        ...reservation(`rsv_01aaaaaaaaaaaaaaaaaaaa${String(i).padStart(4, "0")}`, BigInt(i + 1)),
        resource: `po_${i}`,
      }));
      await s.storage.transaction((tx) => tx.ledger.insertReservations(rs));
      expect((await s.inspect.reservations("acct_a")).sort((a, b) => a.id.localeCompare(b.id))).toEqual(rs);
      const fresh = { ...reservation("rsv_01aaaaaaaaaaaaaaaaaaaaffff", 9n), resource: "po_x" };
      await expect(
        s.storage.transaction(async (tx) => {
          await tx.ledger.insertReservations([fresh, rs[7]!]);
          await tx.ledger.lockReservations("acct_a", [fresh.id]); // a statement after it: the write has left
        }),
      ).rejects.toThrow();
      expect(await s.inspect.reservations("acct_a")).toHaveLength(rs.length);
      await s.storage.transaction((tx) => tx.ledger.insertReservations([]));
    });

    it("locks many reservations at once, and a read after buffered updates sees them", async () => {
      const base = reservation("rsv_01aaaaaaaaaaaaaaaaaaaaaab1", 50n);
      const r1 = base;
      const r2 = { ...base, id: "rsv_01aaaaaaaaaaaaaaaaaaaaaab2", amount: 7n, remaining: 7n };
      const other = { ...base, id: "rsv_01aaaaaaaaaaaaaaaaaaaaaab3", accountId: "acct_b" };
      await s.storage.transaction((tx) => tx.ledger.insertReservations([r1, r2, other]));
      await s.storage.transaction(async (tx) => {
        const locked = await tx.ledger.lockReservations("acct_a", [r2.id, other.id, r1.id, "rsv_missing", r2.id]);
        expect(locked).toEqual([r1, r2]);
        await tx.ledger.updateReservation({ ...r1, remaining: 20n });
        await tx.ledger.updateReservation({ ...r2, remaining: 0n, status: "resolved", resolvedAt: T0 + 1 });
        expect(await tx.ledger.lockReservations("acct_a", [r1.id, r2.id])).toEqual([
          { ...r1, remaining: 20n },
          { ...r2, remaining: 0n, status: "resolved", resolvedAt: T0 + 1 },
        ]);
        await tx.ledger.updateReservation({ ...r1, remaining: 0n, status: "resolved", resolvedAt: T0 + 2 });
      });
      expect((await s.inspect.reservations("acct_a")).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { ...r1, remaining: 0n, status: "resolved", resolvedAt: T0 + 2 },
        { ...r2, remaining: 0n, status: "resolved", resolvedAt: T0 + 1 },
      ]);
      expect(await s.storage.transaction((tx) => tx.ledger.lockReservations("acct_a", []))).toEqual([]);
      await expect(s.storage.transaction((tx) => tx.ledger.updateReservation({ ...base, id: "rsv_01aaaaaaaaaaaaaaaaaaaaaab9" }))).rejects.toThrow();
    });

    it("pages the account's own entries by (created, id), both ways, within a window and a resource prefix", async () => {
      // Ties on created, counter books, another account, and resources a LIKE wildcard would confuse.
      const rows: LedgerEntryRecord[] = [];
      const resources = ["po_1", "poX1", "sw_1", null, "po_2"];
      let n = 0;
      const add = (accountId: string, book: LedgerEntryRecord["book"], amount: bigint, created: number) =>
        rows.push({
          id: `le_01bbbbbbbbbbbbbbbbbbbbb${String(n).padStart(3, "0")}`,
          accountId,
          postingId: `pst_01bbbbbbbbbbbbbbbbbbbb${String(n).padStart(3, "0")}`,
          asset: "USDC",
          chain: "base",
          book,
          amount,
          resource: resources[n++ % resources.length]!,
          created,
          line: 0,
        });
      for (let i = 0; i < 12; i++) {
        const created = T0 + Math.floor(i / 3) * 1000; // three entries per millisecond value
        add("acct_a", "available", 5n, created);
        add("acct_a", "counter:external", -5n, created);
        add("acct_b", "available", 7n, created);
        add("acct_b", "counter:external", -7n, created);
      }
      // Inserted out of order: pages must sort, not rely on insertion order.
      const shuffled = [...rows].reverse();
      await s.storage.transaction(async (tx) => {
        await tx.ledger.lockBalances([...keysOf("acct_a", ["available", "counter:external"]), ...keysOf("acct_b", ["available", "counter:external"])]);
        await tx.ledger.appendEntries(shuffled);
      });
      const stored = (await s.inspect.entries("acct_a")).filter((e) => e.book === "available");
      const key = (e: { created: number; id: string }) => `${String(e.created).padStart(16, "0")}/${e.id}`;
      const ascending = [...stored].sort((a, b) => (key(a) < key(b) ? -1 : 1));

      const walk = async (query: Omit<LedgerPageQuery, "after" | "limit">, limit: number) => {
        const seen: LedgerEntryRecord[] = [];
        let after: { created: number; id: string } | undefined;
        for (;;) {
          const q = { ...query, limit, ...(after ? { after } : {}) };
          const page = await s.storage.transaction((tx) => tx.ledger.pageEntries(q));
          expect(page.length).toBeLessThanOrEqual(limit);
          // the same page handed over entry by entry, as report builds read it
          const each: LedgerEntryRecord[] = [];
          expect(await s.storage.transaction((tx) => tx.ledger.pageEntriesEach(q, (e) => each.push(e)))).toBe(page.length);
          expect(each).toEqual(page);
          seen.push(...page);
          if (page.length < limit) return seen;
          const last = page[page.length - 1]!;
          after = { created: last.created, id: last.id };
        }
      };
      const ids = (list: LedgerEntryRecord[]) => list.map((e) => e.id);

      expect(ids(await walk({ accountId: "acct_a", order: "asc" }, 5))).toEqual(ids(ascending));
      expect(ids(await walk({ accountId: "acct_a", order: "desc" }, 4))).toEqual(ids([...ascending].reverse()));
      expect(await walk({ accountId: "acct_a", order: "asc" }, 100)).toEqual(ascending);

      const window = { createdGte: T0 + 1000, createdLt: T0 + 3000 };
      const inWindow = ascending.filter((e) => e.created >= window.createdGte && e.created < window.createdLt);
      expect(inWindow.length).toBe(6);
      expect(ids(await walk({ accountId: "acct_a", order: "asc", ...window }, 4))).toEqual(ids(inWindow));
      expect(ids(await walk({ accountId: "acct_a", order: "desc", ...window }, 4))).toEqual(ids([...inWindow].reverse()));

      const payouts = ascending.filter((e) => e.resource?.startsWith("po_"));
      expect(payouts.length).toBeGreaterThan(0);
      expect(ids(await walk({ accountId: "acct_a", order: "asc", resourcePrefix: "po_" }, 2))).toEqual(ids(payouts));
      expect(await walk({ accountId: "acct_a", order: "asc", resourcePrefix: "po_%" }, 10)).toEqual([]);
      expect(await walk({ accountId: "acct_c", order: "asc" }, 10)).toEqual([]);
    });
  });
}

/** An active reservation of acct_a, USDC on base, made at T0 for po_1. */
function reservation(id: string, amount: bigint): ReservationRecord {
  return {
    id,
    accountId: "acct_a",
    asset: "USDC",
    chain: "base",
    amount,
    remaining: amount,
    status: "active",
    resource: "po_1",
    created: T0,
    resolvedAt: null,
  };
}

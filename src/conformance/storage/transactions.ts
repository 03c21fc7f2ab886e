import { describe, expect, it } from "vitest";
import type { BalanceRecord, StorageTx } from "../../ports/storage";
import { type SuiteContext, T0, account, delivery, entries, event, keysOf, resource, work } from "./fixtures";

export function transactionSuite(s: SuiteContext): void {
  it("init can run again on an initialised store", async () => {
    await s.storage.init();
    await s.storage.transaction((tx) => tx.accounts.insertAccount(account("acct_a")));
    expect(await s.storage.transaction((tx) => tx.accounts.getAccount("acct_a"))).toMatchObject({ id: "acct_a" });
  });

  it("autocommit: each call's writes are committed when it resolves, and its reads see what is committed", async () => {
    await s.storage.transaction((tx) => tx.accounts.insertAccount(account("acct_a")));
    const read = await s.storage.autocommit(async (tx) => {
      const before = await tx.accounts.getAccount("acct_a");
      await tx.events.insert([event("acct_a", "evt_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]); // buffered by some adapters
      const seen = await tx.events.get("acct_a", "evt_01aaaaaaaaaaaaaaaaaaaaaaaa");
      await tx.resources.insert([resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]); // the last write
      return { before, seen };
    });
    expect(read.before).toMatchObject({ id: "acct_a" });
    expect(read.seen).toMatchObject({ id: "evt_01aaaaaaaaaaaaaaaaaaaaaaaa" });
    expect(await s.inspect.events("acct_a")).toHaveLength(1);
    expect(await s.inspect.resources("acct_a")).toHaveLength(1);
  });

  it("reads sent together, without waiting for one another, each see every write before them", async () => {
    await s.storage.transaction((tx) => tx.accounts.insertAccount(account("acct_a")));
    const ids = ["evt_01aaaaaaaaaaaaaaaaaaaaaaaa", "evt_01bbbbbbbbbbbbbbbbbbbbbbbb"];
    const seen = await s.storage.transaction(async (tx) => {
      await tx.events.insert(ids.map((id) => event("acct_a", id, T0))); // buffered by some adapters
      // the first of them sends the writes; the others must not overtake them
      return Promise.all([tx.events.get("acct_a", ids[0]!), tx.events.getMany("acct_a", ids), tx.events.get("acct_a", ids[1]!)]);
    });
    expect(seen[0]).toMatchObject({ id: ids[0] });
    expect(seen[1].map((e) => e.id).sort()).toEqual(ids);
    expect(seen[2]).toMatchObject({ id: ids[1] });
  });

  it("commits what a transaction wrote and rolls back what a throwing one wrote", async () => {
    const boom = new Error("boom");
    await s.storage.transaction((tx) => tx.accounts.insertAccount(account("acct_a")));
    const thrown = await s.storage
      .transaction(async (tx) => {
        await tx.ledger.lockBalances(keysOf("acct_a", ["available", "counter:external"]));
        await tx.ledger.appendEntries(
          entries("acct_a", [
            ["available", 5n],
            ["counter:external", -5n],
          ]),
        );
        await tx.events.insert([event("acct_a", "evt_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
        await tx.resources.insert([resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
        await tx.work.enqueue([work("job_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
        await tx.deliveries.insert([delivery("acct_a", "dlv_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
        throw boom;
      })
      .catch((e: unknown) => e);
    expect(thrown).toBe(boom);
    expect(await s.inspect.entries("acct_a")).toEqual([]);
    expect((await s.inspect.balances("acct_a")).filter((b) => b.amount !== 0n)).toEqual([]);
    expect(await s.inspect.events("acct_a")).toEqual([]);
    expect(await s.inspect.resources("acct_a")).toEqual([]);
    expect(await s.inspect.work()).toEqual([]);
    expect(await s.inspect.deliveries("acct_a")).toEqual([]);
  });

  it("writes a bulk transaction whole: later reads see every row, and a bad write late in it keeps nothing", async () => {
    // 12,000 ledger entries and 6,000 reservations, the shape of a large batch's acceptance
    // (an adapter may start writing such a transaction's rows before its commit)
    const bulk = (accountId: string) => {
      const lines = Array.from({ length: 6_000 }, (_, i) =>
        entries(
          accountId,
          [
            ["available", -1n],
            ["reserved", 1n],
          ],
          2 * i,
        ).map((e) => ({ ...e, postingId: `pst_bulk_${i}`, id: `le_bulk_${i}_${e.line}` })),
      ).flat();
      const reservations = Array.from({ length: 6_000 }, (_, i) => ({
        id: `rsv_bulk_${String(i).padStart(5, "0")}`,
        accountId,
        asset: "USDC",
        chain: "base",
        amount: 1n,
        remaining: 1n,
        status: "active" as const,
        resource: `po_${i}`,
        created: T0,
        resolvedAt: null,
      }));
      return { lines, reservations };
    };
    const keys = keysOf("acct_a", ["available", "reserved", "counter:external"]);
    await s.storage.transaction(async (tx) => {
      await tx.ledger.lockBalances(keys);
      await tx.ledger.appendEntries(
        entries(
          "acct_a",
          [
            ["available", 20_000n],
            ["counter:external", -20_000n],
          ],
          90_000,
        ),
      );
    });
    const { lines, reservations } = bulk("acct_a");
    await s.storage.transaction(async (tx) => {
      await tx.ledger.lockBalances(keys);
      await tx.ledger.appendEntries(lines);
      await tx.ledger.insertReservations(reservations);
      await tx.resources.insert([resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
      expect(await tx.ledger.lockReservations("acct_a", ["rsv_bulk_00000", "rsv_bulk_05999"])).toHaveLength(2);
      expect((await tx.ledger.listBalances("acct_a")).find((b) => b.book === "reserved")?.amount).toBe(6_000n);
    });
    expect(await s.inspect.entries("acct_a")).toHaveLength(2 + lines.length);
    expect(await s.inspect.reservations("acct_a")).toHaveLength(reservations.length);
    expect((await s.inspect.balances("acct_a")).find((b) => b.book === "available")?.amount).toBe(14_000n);

    const before = { entries: await s.inspect.entries("acct_a"), balances: await s.inspect.balances("acct_a") };
    const again = bulk("acct_a");
    const thrown = await s.storage
      .transaction(async (tx) => {
        await tx.ledger.lockBalances(keys);
        await tx.ledger.appendEntries(again.lines.map((e) => ({ ...e, id: `${e.id}_2`, postingId: `${e.postingId}_2` })));
        await tx.resources.insert([resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaab", T0)]);
        await tx.ledger.insertReservations(again.reservations); // they exist already: the transaction fails
        await tx.ledger.lockReservations("acct_a", ["rsv_bulk_00001"]);
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(thrown).toBeInstanceOf(Error);
    expect(await s.inspect.entries("acct_a")).toEqual(before.entries);
    expect(await s.inspect.balances("acct_a")).toEqual(before.balances);
    expect((await s.inspect.resources("acct_a")).map((r) => r.id)).toEqual(["po_01aaaaaaaaaaaaaaaaaaaaaaaa"]);
  });

  it("serialises concurrent writers of one balance row through its lock", async () => {
    const keys = keysOf("acct_a", ["available", "counter:external"]);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        s.storage.transaction(async (tx) => {
          await tx.ledger.lockBalances(keys);
          await tx.ledger.appendEntries(
            entries(
              "acct_a",
              [
                ["available", 1n],
                ["counter:external", -1n],
              ],
              i * 2,
            ),
          );
        }),
      ),
    );
    const balances = await s.inspect.balances("acct_a");
    expect(balances.find((b) => b.book === "available")?.amount).toBe(40n);
    expect((await s.inspect.entries("acct_a")).length).toBe(80);
  });

  describe("optimistic transactions (CommitOptions.optimistic)", () => {
    const keys = keysOf("acct_a", ["available", "counter:external", "pending", "reserved"]);
    const book = async (name: string) => (await s.inspect.balances("acct_a")).find((b) => b.book === name)?.amount;
    /** Posts `amount` from outside into `book` on `chain` as posting `seq` (its rows locked by `tx`). */
    const credit = (tx: StorageTx, book: BalanceRecord["book"], amount: bigint, seq: number, chain = "base") =>
      tx.ledger.appendEntries(
        entries(
          "acct_a",
          [
            [book, amount],
            ["counter:external", -amount],
          ],
          seq,
        ).map((e) => ({ ...e, chain })),
      );
    /** 100 available on acct_a, every row of `keys` made. */
    const fund = () =>
      s.storage.transaction(async (tx) => {
        await tx.ledger.lockBalances(keys);
        await credit(tx, "available", 100n, 0);
      });
    /** Moves `amount` from available to reserved as posting `seq`, when the rows it was given allow it. */
    const reserve = async (tx: StorageTx, rows: readonly BalanceRecord[], amount: bigint, seq: number) => {
      const available = rows.find((r) => r.book === "available")!.amount;
      if (available < amount) return false;
      await tx.ledger.appendEntries(
        entries(
          "acct_a",
          [
            ["available", -amount],
            ["reserved", amount],
          ],
          seq,
        ),
      );
      return true;
    };

    it("commits what it wrote, and a throwing one writes nothing", async () => {
      await fund();
      await s.storage.transaction(async (tx) => reserve(tx, await tx.ledger.lockBalances(keys), 30n, 10), { optimistic: true });
      const boom = new Error("boom");
      const thrown = await s.storage
        .transaction(
          async (tx) => {
            await reserve(tx, await tx.ledger.lockBalances(keys), 30n, 20);
            await tx.resources.insert([resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaaa", T0)]);
            throw boom;
          },
          { optimistic: true },
        )
        .catch((e: unknown) => e);
      expect(thrown).toBe(boom);
      expect(await book("available")).toBe(70n);
      expect(await book("reserved")).toBe(30n);
      expect(await s.inspect.resources("acct_a")).toEqual([]);
    });

    it("with concurrentTransactions: one whose balance rows changed before it wrote runs again, on what it then reads, and writes once", async (ctx) => {
      if (!s.storage.capabilities.concurrentTransactions) {
        ctx.skip("the adapter runs transactions one at a time (capabilities.concurrentTransactions is false)");
        return;
      }
      await fund();
      // another transaction moves rows the first only reads (pending), or one it reads and moves (available)
      for (const [moved, seq] of [
        ["pending", 10],
        ["available", 30],
      ] as const) {
        const seen: bigint[] = [];
        await s.storage.transaction(
          async (tx) => {
            const rows = await tx.ledger.lockBalances(keys);
            seen.push(rows.find((r) => r.book === "available")!.amount);
            if (seen.length === 1) {
              await s.storage.transaction(async (other) => {
                await other.ledger.lockBalances(keys);
                await credit(other, moved, moved === "available" ? 5n : 3n, seq);
              });
            }
            // everything available, as this run read it: a lost update would leave some behind or overdraw
            await reserve(tx, rows, rows.find((r) => r.book === "available")!.amount, seq + 10);
            await tx.resources.insert([resource("acct_a", `po_01aaaaaaaaaaaaaaaaaaaaaa${seq}`, T0)]);
          },
          { optimistic: true },
        );
        expect(seen).toHaveLength(2);
        expect(await book("available")).toBe(0n);
      }
      expect(await book("reserved")).toBe(105n);
      expect(await book("pending")).toBe(3n);
      expect(await s.inspect.resources("acct_a")).toHaveLength(2);
      const all = await s.inspect.entries("acct_a");
      expect(all.reduce((sum, e) => sum + e.amount, 0n)).toBe(0n);
    });

    it("with concurrentTransactions: one that read an (account, asset) before another added rows to it runs again, and sees them", async (ctx) => {
      if (!s.storage.capabilities.concurrentTransactions) {
        ctx.skip("the adapter runs transactions one at a time (capabilities.concurrentTransactions is false)");
        return;
      }
      await fund();
      const polygon = keys.map((k) => ({ ...k, chain: "polygon" }));
      const seen: number[] = [];
      await s.storage.transaction(
        async (tx) => {
          const rows = await tx.ledger.lockBalances(keys);
          seen.push(rows.length);
          if (seen.length === 1) {
            // the account's first polygon rows, funded
            await s.storage.transaction(async (other) => {
              await other.ledger.lockBalances(polygon);
              await credit(other, "available", 7n, 10, "polygon");
            });
          }
          await reserve(tx, rows, 1n, 20);
        },
        { optimistic: true },
      );
      expect(seen).toEqual([keys.length, 2 * keys.length]);
    });

    it("with concurrentTransactions: racing ones never overdraw, and each that commits moved what it read", async (ctx) => {
      if (!s.storage.capabilities.concurrentTransactions) {
        ctx.skip("the adapter runs transactions one at a time (capabilities.concurrentTransactions is false)");
        return;
      }
      await fund();
      const done = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          s.storage.transaction(async (tx) => reserve(tx, await tx.ledger.lockBalances(keys), 7n, 10 + 2 * i), { optimistic: true }),
        ),
      );
      expect(done.filter(Boolean)).toHaveLength(14); // 14 × 7 of the 100
      expect(await book("available")).toBe(2n);
      expect(await book("reserved")).toBe(98n);
    });
  });

  it("runs transactions side by side when the adapter declares concurrentTransactions", async (ctx) => {
    if (!s.storage.capabilities.concurrentTransactions) {
      ctx.skip("the adapter runs transactions one at a time (capabilities.concurrentTransactions is false)");
      return;
    }
    let entered!: () => void;
    let release!: () => void;
    const inFirst = new Promise<void>((r) => (entered = r));
    const held = new Promise<void>((r) => (release = r));
    const first = s.storage.transaction(async (tx) => {
      await tx.meta.set("first", "1");
      entered();
      await held;
    });
    await inFirst;
    // the second commits while the first is still open
    await s.storage.transaction((tx) => tx.meta.set("second", "2"));
    expect(await s.storage.transaction((tx) => tx.meta.get("first"))).toBeNull();
    release();
    await first;
    expect(await s.storage.transaction((tx) => tx.meta.get("first"))).toBe("1");
  });
}

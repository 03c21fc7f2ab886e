import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStorage, pgPoolDriver } from "../../../adapters/postgres";
import type { BalanceKey, BalanceRecord, LedgerEntryRecord, StorageTx } from "../../../src/ports/storage";

/**
 * Optimistic transactions (`CommitOptions.optimistic`) on a PostgreSQL server are serializable
 * on the balance rows they read, as locked ones are, whether a reading came from the server or
 * from the process's cache (`BalanceCache`): random mixes of "sweeps" (read the account's USDC
 * rows, move everything available on each chain to reserved) and funds (amounts 2^j on base or
 * on polygon, whose first fund adds that chain's rows), optimistic or not, race from two storages
 * on one schema (two processes: no turns and no cache shared). Each committed transaction
 * records what it read. In a serial history the sweeps, ordered by the reserved total they read,
 * each read what the one before left; the funds each saw only grow; and a fund that read
 * reserved r came after the sweeps that read less and before those that read r or more, which
 * then saw it (which also holds when the fund added the pair's polygon rows while a sweep waited
 * for their locks: a locking read sent again). Finally the balances hold every committed fund.
 * The storages never retry (`maxAttempts: 1`): optimistic flushes lock the rows they check in
 * the order locking reads do, so no transaction is ever chosen as a deadlock's victim.
 */
const url = process.env.DATABASE_URL;
const ACCOUNT = "acct_sweep";
const CHAINS = ["base", "polygon"] as const;
const keysOn = (chain: string): BalanceKey[] =>
  (["available", "counter:external", "reserved"] as const).map((book) => ({ accountId: ACCOUNT, asset: "USDC", chain, book }));

type Op = { kind: "sweep" | "fund"; chain: (typeof CHAINS)[number]; optimistic: boolean };
type Reading = { available: bigint; reserved: bigint };

describe.skipIf(!url)("optimistic balance reads on a PostgreSQL server", () => {
  const schema = `t_optimistic_${process.pid}`;
  const pools = [0, 1].map(() => new pg.Pool({ connectionString: url, max: 4 }));
  // no retries: a deadlock (or any other failure) fails the property at once
  const stores = pools.map((pool) => new PostgresStorage(pgPoolDriver(pool), { schema, maxAttempts: 1 }));

  beforeAll(async () => {
    await stores[0]!.init();
    await stores[1]!.init();
  });
  afterAll(async () => {
    await pools[0]!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await Promise.all(stores.map((s) => s.close()));
  });

  let seq = 0;
  /** One posting of `lines` (book, chain, amount) on the account (ids unique across runs). */
  const post = (tx: StorageTx, lines: [BalanceKey["book"], string, bigint][]) => {
    const posting = `pst_${seq++}`;
    const entries: LedgerEntryRecord[] = lines.map(([book, chain, amount], line) => ({
      id: `le_${posting}_${line}`,
      accountId: ACCOUNT,
      postingId: posting,
      line,
      asset: "USDC",
      chain,
      book,
      amount,
      resource: null,
      created: 0,
    }));
    return tx.ledger.appendEntries(entries);
  };
  const total = (rows: readonly BalanceRecord[], book: string) => rows.filter((r) => r.book === book).reduce((a, r) => a + r.amount, 0n);

  it("sweeps racing funds read one serial history", async () => {
    const op = fc.record({ kind: fc.constantFrom("sweep", "fund"), chain: fc.constantFrom(...CHAINS), optimistic: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 2, maxLength: 14 }), fc.boolean(), fc.boolean(), async (ops: Op[], warm: boolean, made: boolean) => {
        await pools[0]!.query(`TRUNCATE "${schema}".balances, "${schema}".ledger_entries`);
        // the base rows (and the polygon ones, when `made`), read by both storages (their caches then hold them) or by one
        const keys = made ? [...keysOn("base"), ...keysOn("polygon")] : keysOn("base");
        for (const store of warm ? stores : [stores[0]!]) await store.transaction(async (tx) => void (await tx.ledger.lockBalances(keys)));
        const funds = ops.map((o, i) => (o.kind === "fund" ? 1n << BigInt(i) : 0n));
        const sweeps: Reading[] = [];
        const funded: { bit: bigint; reserved: bigint }[] = [];
        // every transaction ends before the run does (else one still running after a failure would
        // write into the next run, the shrinking's), then the first failure fails the run
        const outcomes = await Promise.allSettled(
          ops.map((o, i) =>
            stores[i % 2]!.transaction(
              async (tx) => {
                const rows = await tx.ledger.lockBalances(keysOn(o.kind === "fund" ? o.chain : "base"));
                const read = { available: total(rows, "available"), reserved: total(rows, "reserved") };
                if (o.kind === "fund") {
                  await post(tx, [
                    ["available", o.chain, funds[i]!],
                    ["counter:external", o.chain, -funds[i]!],
                  ]);
                  return () => funded.push({ bit: funds[i]!, reserved: read.reserved });
                }
                const lines = rows.filter((r) => r.book === "available" && r.amount > 0n);
                if (lines.length === 0) return () => undefined;
                await post(
                  tx,
                  lines.flatMap((r): [BalanceKey["book"], string, bigint][] => [
                    ["available", r.chain, -r.amount],
                    ["reserved", r.chain, r.amount],
                  ]),
                );
                return () => sweeps.push(read);
              },
              { optimistic: o.optimistic },
            ).then((record) => record()),
          ),
        );
        for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
        sweeps.sort((a, b) => (a.reserved < b.reserved ? -1 : a.reserved > b.reserved ? 1 : 0));
        let reserved = 0n;
        let seen = 0n;
        for (const read of sweeps) {
          expect(read.reserved).toBe(reserved); // what the sweep before it left
          const bits = read.available + read.reserved; // the funds committed before it
          expect(bits & seen).toBe(seen); // never fewer than an earlier sweep saw
          seen = bits;
          reserved += read.available;
        }
        for (const fund of funded) {
          for (const sweep of sweeps)
            expect(sweep.available + sweep.reserved >= 0n && ((sweep.available + sweep.reserved) & fund.bit) !== 0n).toBe(sweep.reserved >= fund.reserved);
        }
        const { rows } = await pools[0]!.query(`SELECT book, amount FROM "${schema}".balances WHERE account_id = $1`, [ACCOUNT]);
        const book = (name: string) => rows.filter((r) => r.book === name).reduce((a, r) => a + BigInt(r.amount), 0n);
        expect(book("reserved")).toBe(reserved);
        expect(book("available") + book("reserved")).toBe(funds.reduce((a, b) => a + b, 0n));
      }),
      { numRuns: 60 },
    );
  }, 180_000);
});

import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStorage, pgPoolDriver } from "../../../adapters/postgres";
import type { BalanceKey, LedgerEntryRecord, StorageTx } from "../../../src/ports/storage";

/**
 * Optimistic transactions (`CommitOptions.optimistic`) on a PostgreSQL server are serializable
 * on the balance rows they read, as locked ones are: random mixes of "sweeps" (read the account,
 * move everything available to reserved) and funds (amounts 2^j, so a reading names exactly the
 * funds before it), optimistic or not, race from two storages on one schema (two processes: no
 * turns in memory between them). Each committed sweep records what it read. Then, ordered by the
 * reserved amount they read, the sweeps form one chain (each read what the one before left:
 * reserved grew by exactly its move, available was what came in since), the funds each saw only
 * grow, and the final balances hold every committed fund.
 */
const url = process.env.DATABASE_URL;
const ACCOUNT = "acct_sweep";
const KEYS: BalanceKey[] = (["available", "counter:external", "reserved"] as const).map((book) => ({ accountId: ACCOUNT, asset: "USDC", chain: "base", book }));

type Op = { kind: "sweep" | "fund"; optimistic: boolean };

describe.skipIf(!url)("optimistic balance reads on a PostgreSQL server", () => {
  const schema = `t_optimistic_${process.pid}`;
  const pools = [0, 1].map(() => new pg.Pool({ connectionString: url, max: 4 }));
  const stores = pools.map((pool) => new PostgresStorage(pgPoolDriver(pool), { schema }));

  beforeAll(async () => {
    await stores[0]!.init();
    await stores[1]!.init();
  });
  afterAll(async () => {
    await pools[0]!.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await Promise.all(stores.map((s) => s.close()));
  });

  let seq = 0;
  /** One posting of `lines` on the account (ids unique across runs). */
  const post = (tx: StorageTx, lines: [BalanceKey["book"], bigint][]) => {
    const posting = `pst_${seq++}`;
    const entries: LedgerEntryRecord[] = lines.map(([book, amount], line) => ({
      id: `le_${posting}_${line}`,
      accountId: ACCOUNT,
      postingId: posting,
      line,
      asset: "USDC",
      chain: "base",
      book,
      amount,
      resource: null,
      created: 0,
    }));
    return tx.ledger.appendEntries(entries);
  };

  it("sweeps racing funds read one serial history", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ kind: fc.constantFrom("sweep", "fund"), optimistic: fc.boolean() }), { minLength: 2, maxLength: 14 }), async (ops: Op[]) => {
        await pools[0]!.query(`TRUNCATE "${schema}".balances, "${schema}".ledger_entries`);
        await stores[0]!.transaction(async (tx) => {
          await tx.ledger.lockBalances(KEYS); // the rows, so every later reading of them may be unlocked
        });
        const funds = ops.map((op, i) => (op.kind === "fund" ? 1n << BigInt(i) : 0n));
        const swept: { available: bigint; reserved: bigint }[] = [];
        await Promise.all(
          ops.map((op, i) =>
            stores[i % 2]!.transaction(
              async (tx) => {
                const rows = await tx.ledger.lockBalances(KEYS);
                const available = rows.find((r) => r.book === "available")!.amount;
                const reserved = rows.find((r) => r.book === "reserved")!.amount;
                if (op.kind === "fund") {
                  await post(tx, [
                    ["available", funds[i]!],
                    ["counter:external", -funds[i]!],
                  ]);
                  return;
                }
                if (available === 0n) return;
                await post(tx, [
                  ["available", -available],
                  ["reserved", available],
                ]);
                return { available, reserved };
              },
              { optimistic: op.optimistic },
            ).then((read) => {
              if (read) swept.push(read);
            }),
          ),
        );
        swept.sort((a, b) => (a.reserved < b.reserved ? -1 : a.reserved > b.reserved ? 1 : 0));
        let reserved = 0n;
        let seen = 0n;
        for (const read of swept) {
          expect(read.reserved).toBe(reserved); // what the sweep before it left
          const total = read.available + read.reserved; // the funds committed before it, as bits
          expect(total & seen).toBe(seen); // never fewer than an earlier sweep saw
          seen = total;
          reserved += read.available;
        }
        const { rows } = await pools[0]!.query(`SELECT book, amount FROM "${schema}".balances WHERE account_id = $1`, [ACCOUNT]);
        const book = (name: string) => BigInt(rows.find((r) => r.book === name)!.amount);
        expect(book("reserved")).toBe(reserved);
        expect(book("available") + book("reserved")).toBe(funds.reduce((a, b) => a + b, 0n));
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});

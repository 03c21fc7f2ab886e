import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStorage, pgPoolDriver, type PgPoolLike, type PgStatement } from "../../../adapters/postgres";
import { IdempotencyKeyLostError } from "../../../src/ports/storage/idempotency";

/**
 * How the PostgreSQL adapter saves round trips on a server (docs/decisions.md): BEGIN waits for
 * the first write or lock, a transaction's last flush stands alone, statements are named and
 * prepared once per session, and a prepared statement gone stale under a migration is prepared
 * again. Counted by a pool that sees every statement.
 */
const url = process.env.DATABASE_URL;

describe.skipIf(!url)("PostgreSQL round trips (needs DATABASE_URL: PGlite has no round trips to save)", () => {
  const seen: string[] = [];
  let pool: pg.Pool;
  let storage: PostgresStorage;
  const schema = `rt_${process.pid}_${Date.now().toString(36)}`;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 2 });
    const text = (s: PgStatement) => (typeof s === "string" ? s : s.text);
    const counted: PgPoolLike = {
      async connect() {
        const c = await pool.connect();
        return {
          query: (s: PgStatement, p?: unknown[]) => {
            seen.push(text(s));
            return c.query(s as never, p);
          },
          release: (e?: Error | boolean) => c.release(e),
        };
      },
      query: (s: PgStatement, p?: unknown[]) => {
        seen.push(text(s));
        return pool.query(s as never, p);
      },
      end: async () => undefined,
    };
    storage = new PostgresStorage(pgPoolDriver(counted), { schema });
    await storage.init();
    await storage.transaction((tx) => tx.accounts.insertAccount({ id: "acct_a", name: "A", livemode: false, settings: {}, created: 0 }));
  });

  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  const counting = async <T>(fn: () => Promise<T>): Promise<{ value: T; statements: string[] }> => {
    seen.length = 0;
    const value = await fn();
    return { value, statements: [...seen] };
  };
  const begins = (statements: string[]) => statements.filter((t) => t.startsWith("BEGIN")).length;

  it("sends no BEGIN or COMMIT for a transaction that only reads", async () => {
    const { value, statements } = await counting(() =>
      storage.transaction(async (tx) => [await tx.accounts.getAccount("acct_a"), await tx.meta.get("nothing")] as const),
    );
    expect(value[0]).toMatchObject({ id: "acct_a" });
    expect(statements).toHaveLength(2);
    expect(begins(statements) + statements.filter((t) => t === "COMMIT").length).toBe(0);
  });

  it("sends reads then the one last write alone, and that write is atomic on its own", async () => {
    const { statements } = await counting(() =>
      storage.transaction(async (tx) => {
        await tx.accounts.getAccount("acct_a");
        await tx.meta.set("k", "v"); // a statement of its own: opens the transaction
      }),
    );
    expect(statements[0]).toMatch(/^SELECT/);
    expect(statements[1]).toMatch(/^BEGIN/);
    const key = { accountId: "acct_a", key: "k-1", fingerprint: "f", lockedAt: 1, response: null, created: 1, expiresAt: 10 };
    // buffered writes only: one statement, no BEGIN; its expectation fails inside it, writing nothing
    const failed = await counting(() =>
      storage
        .transaction(async (tx) => {
          await tx.events.insert([
            {
              accountId: "acct_a",
              id: "evt_x",
              type: "balance.updated",
              created: 1,
              livemode: false,
              data: { object: {} },
              request: { id: null, idempotency_key: null },
            },
          ]);
          await tx.idempotency.replaceAtCommit(
            { ...key, lockedAt: null, response: { status: 200, body: {} } },
            { lockedAt: 1, responded: false },
            { required: true },
          );
        })
        .catch((e: unknown) => e),
    );
    expect(failed.value).toBeInstanceOf(IdempotencyKeyLostError);
    expect(failed.statements).toHaveLength(1);
    expect(begins(failed.statements)).toBe(0);
    expect(await storage.transaction((tx) => tx.events.get("acct_a", "evt_x"))).toBeNull();
  });

  it("opens the transaction before the first lock, and the reads before it stay outside", async () => {
    const { statements } = await counting(() =>
      storage.transaction(async (tx) => {
        await tx.accounts.getAccount("acct_a");
        await tx.meta.get("k", { lock: true });
      }),
    );
    expect(statements.map((t) => t.split(" ")[0])).toEqual(["SELECT", "BEGIN", "SELECT", "COMMIT"]);
  });

  it("commits without waiting for the disk only when asked (durable: false), in a begun transaction and alone", async () => {
    const mode = (tx: { meta: { get(k: string, o?: { lock?: boolean }): Promise<string | null> } }) => tx.meta.get("k", { lock: true });
    const setting = async (durable?: boolean) => {
      const { statements } = await counting(() =>
        storage.transaction(
          async (tx) => {
            await mode(tx); // opens the transaction
            await tx.meta.set("mode", "x");
          },
          durable === undefined ? {} : { durable },
        ),
      );
      return statements[0]!;
    };
    expect(await setting()).not.toMatch(/synchronous_commit/);
    expect(await setting(false)).toMatch(/^BEGIN .*; SET LOCAL synchronous_commit TO off$/);
    const key = { accountId: "acct_a", key: "relaxed", fingerprint: "f", lockedAt: 1, response: null, created: 1, expiresAt: 10 };
    const alone = await counting(() => storage.autocommit((tx) => tx.idempotency.claim(key), { durable: false }));
    expect(alone.value).toEqual({ inserted: true });
    expect(alone.statements).toHaveLength(1);
    expect(alone.statements[0]).toMatch(/set_config\('synchronous_commit', 'off', true\)/);
    const flushed = await counting(() =>
      storage.transaction(
        (tx) =>
          tx.meta.get("mode").then(() =>
            tx.events.insert([
              {
                accountId: "acct_a",
                id: "evt_relaxed",
                type: "balance.updated",
                created: 1,
                livemode: false,
                data: { object: {} },
                request: { id: null, idempotency_key: null },
              },
            ]),
          ),
        { durable: false },
      ),
    );
    expect(begins(flushed.statements)).toBe(0);
    expect(flushed.statements.at(-1)).toMatch(/set_config\('synchronous_commit', 'off', true\)/);
    expect(await storage.transaction((tx) => tx.events.get("acct_a", "evt_relaxed"))).toMatchObject({ id: "evt_relaxed" });
  });

  it("an optimistic transaction reads balance rows unlocked once, then from what the process committed, and writes in one statement", async () => {
    const keys = (["available", "counter:external"] as const).map((book) => ({ accountId: "acct_a", asset: "USDC", chain: "base", book }));
    let seq = 0;
    const fund = (tx: Parameters<Parameters<PostgresStorage["transaction"]>[0]>[0]) =>
      tx.ledger
        .appendEntries(
          (["available", "counter:external"] as const).map((book, line) => ({
            id: `le_rt_${seq}_${line}`,
            accountId: "acct_a",
            postingId: `pst_rt_${seq}`,
            line,
            asset: "USDC",
            chain: "base",
            book,
            amount: line === 0 ? 5n : -5n,
            resource: null,
            created: 0,
          })),
        )
        .then(() => seq++);
    const optimistic = () => counting(() => storage.transaction(async (tx) => fund(await tx.ledger.lockBalances(keys).then(() => tx)), { optimistic: true }));
    await storage.transaction(async (tx) => void (await tx.ledger.lockBalances(keys))); // the rows made
    await pool.query(`UPDATE "${schema}".balances SET amount = amount`); // changed behind the process's back
    const first = await optimistic();
    // its cached reading was stale: forgotten, read unlocked, written in one statement (no BEGIN, no COMMIT)
    expect(first.statements.map((t) => t.split(" ")[0])).toEqual(["WITH", "SELECT", "WITH"]);
    const warm = await optimistic();
    expect(warm.statements.map((t) => t.split(" ")[0])).toEqual(["WITH"]);
    expect(warm.statements[0]).toMatch(/xmin::text = d\.version/);
    const rows = await storage.transaction((tx) => tx.ledger.listBalances("acct_a"));
    expect(rows.find((r) => r.book === "available")?.amount).toBe(10n);
  });

  it("prepares a statement again when a migration changed what it returns", async () => {
    const read = () => storage.transaction((tx) => tx.accounts.getAccount("acct_a"));
    for (let i = 0; i < 3; i++) await read(); // prepared on the pool's sessions
    await pool.query(`ALTER TABLE "${schema}".accounts ADD COLUMN later text`);
    expect(await read()).toMatchObject({ id: "acct_a" });
    expect(await read()).toMatchObject({ id: "acct_a" });
  });
});

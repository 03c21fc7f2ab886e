import pg from "pg";
import { ManualClock } from "../adapters/clock";
import { createMemoryStorage } from "../adapters/memory";
import { connectPostgres, createPostgresStorage, openPGlite, pgPoolDriver, type PgPoolLike } from "../adapters/postgres";
import { createEngine, type Engine } from "../src/engine/engine";
import type { StorageAdapter } from "../src/ports/storage";
import { systemContext } from "../src/engine/context";
import { devPorts } from "../adapters/dev";

/**
 * Payouts: single payouts created per second (4 concurrent clients, each its own Idempotency-Key
 * as through HTTP), and the acceptance time of a 25,000-leg batch (validation, planning, 25,000
 * reservations, payouts and events in one transaction), on memory, PGlite and (DATABASE_URL) a
 * PostgreSQL server, beside a raw-SQL baseline that writes the same rows with hand-written
 * `unnest` inserts in one transaction.
 */
const SINGLES = Number(process.env.BENCH_PAYOUTS ?? 1000);
const LEGS = Number(process.env.BENCH_BATCH_LEGS ?? 25_000);
const CLIENTS = 4;
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

async function setup(storage: StorageAdapter): Promise<{ engine: Engine; ctx: ReturnType<typeof systemContext>; recipients: string[] }> {
  const engine = await createEngine({ storage, ...devPorts({ clock: new ManualClock() }) });
  const account = await engine.accounts.create({ name: "bench" });
  const ctx = systemContext(account.id, false);
  (await engine.testHelpers.fund(ctx, { asset: "USDC", chain: "base", amount: "10000000" }))._unsafeUnwrap();
  const recipients: string[] = [];
  for (let i = 0; i < 100; i++) {
    recipients.push((await engine.recipients.create(ctx, { name: `r${i}`, chain_addresses: { base: BASE } }))._unsafeUnwrap().id);
  }
  return { engine, ctx, recipients };
}

async function benchStorage(name: string, storage: StorageAdapter): Promise<string> {
  const { engine, ctx, recipients } = await setup(storage);
  try {
    let next = 0;
    let start = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < SINGLES) {
          const i = next++;
          const claim = (await engine.idempotency.begin(ctx.accountId, `single-${i}`, "f"))._unsafeUnwrap();
          if (claim.kind !== "proceed") throw new Error("fresh key expected");
          const made = await engine.payouts.create(
            { ...ctx, idempotencyKey: `single-${i}`, idempotency: claim.claim },
            { amount: "1.5", asset: "USDC", recipient: recipients[i % recipients.length] },
          );
          made._unsafeUnwrap();
        }
      }),
    );
    const perSecond = SINGLES / ((performance.now() - start) / 1000);

    const legs = Array.from({ length: LEGS }, (_, row) => ({ row, amount: "1.25", recipient: recipients[row % recipients.length] }));
    start = performance.now();
    const batch = await engine.batches.create(ctx, { reference: "bench", funding: { asset: "USDC", source: "auto" }, legs }, {});
    const accepted = performance.now() - start;
    batch._unsafeUnwrap();
    return `${name.padEnd(10)} payouts created/s ${perSecond.toFixed(0).padStart(6)}   ${LEGS}-leg batch accepted in ${accepted.toFixed(0).padStart(6)} ms`;
  } finally {
    await engine.close();
  }
}

/**
 * Round trips of one payout create on a PostgreSQL server (its idempotency claim, the create and
 * the send of its legs, as `POST /v1/payouts` does): statements and transactions, counted by a
 * pool that sees every statement.
 */
async function statementsPerCreate(url: string): Promise<string> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const seen: string[] = [];
  let counting = false;
  const count = <Q extends (text: string, params?: unknown[]) => Promise<any>>(query: Q) =>
    ((text: string, params?: unknown[]) => {
      if (counting) seen.push(text);
      return query(text, params);
    }) as Q;
  const counted: PgPoolLike = {
    async connect() {
      const c = await pool.connect();
      return { query: count(c.query.bind(c)), release: (e?: Error | boolean) => c.release(e) };
    },
    query: count(pool.query.bind(pool)),
    end: () => pool.end(),
  };
  const schema = `bench_count_${process.pid}`;
  const { engine, ctx, recipients } = await setup(createPostgresStorage({ driver: pgPoolDriver(counted), schema }));
  try {
    for (const i of [0, 1]) {
      seen.length = 0;
      counting = true;
      const claim = (await engine.idempotency.begin(ctx.accountId, `count-${i}`, "f"))._unsafeUnwrap();
      if (claim.kind !== "proceed") throw new Error("fresh key expected");
      (await engine.payouts.create({ ...ctx, idempotencyKey: `count-${i}`, idempotency: claim.claim }, { amount: "1.5", asset: "USDC", recipient: recipients[0] }))._unsafeUnwrap();
      counting = false;
    }
    const transactions = seen.filter((t) => t === "BEGIN").length;
    const statements = seen.filter((t) => t !== "BEGIN" && t !== "COMMIT").length;
    return `${"postgres".padEnd(10)} one payout create (the second; caches warm): ${statements} statements in ${transactions} transactions`;
  } finally {
    await engine.close();
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

/** The rows a batch acceptance writes, as hand-written unnest inserts in one transaction. */
async function rawBaseline(url: string): Promise<string> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const s = `bench_raw_batch_${process.pid}`;
  try {
    await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE; CREATE SCHEMA ${s};
      CREATE TABLE ${s}.resources (account_id text, id text, kind text, created bigint, status text, reference text, data jsonb, PRIMARY KEY (account_id, id));
      CREATE TABLE ${s}.reservations (account_id text, id text, amount numeric, remaining numeric, PRIMARY KEY (account_id, id));
      CREATE TABLE ${s}.entries (account_id text, id text, book text, amount numeric, resource text, PRIMARY KEY (account_id, id));
      CREATE TABLE ${s}.events (account_id text, id text, type text, data json, PRIMARY KEY (account_id, id));
      CREATE TABLE ${s}.balances (k text PRIMARY KEY, amount numeric);
      INSERT INTO ${s}.balances VALUES ('available', 100000000), ('reserved', 0);`);
    const ids = Array.from({ length: LEGS }, (_, i) => `po_${i}`);
    const doc = (i: number) =>
      JSON.stringify({ id: `po_${i}`, status: "executing", amount: "1250000", asset: "USDC", legs: [{ id: `leg_${i}`, chain: "base", amount: "1250000", fee: "10063" }] });
    const start = performance.now();
    const c = await pool.connect();
    try {
      await c.query("BEGIN");
      await c.query(`SELECT * FROM ${s}.balances ORDER BY k FOR UPDATE`);
      await c.query(
        `WITH r AS (INSERT INTO ${s}.resources SELECT 'acct', i, 'payout', 0, 'executing', NULL, d::jsonb FROM unnest($1::text[], $2::text[]) AS x(i, d)),
              v AS (INSERT INTO ${s}.reservations SELECT 'acct', 'rsv_' || i, 1260063, 1260063 FROM unnest($1::text[]) AS x(i)),
              e AS (INSERT INTO ${s}.entries SELECT 'acct', 'le_' || i || b, b, a, i FROM unnest($1::text[]) AS x(i),
                      (VALUES ('available', -1260063), ('reserved', 1260063)) AS y(b, a)),
              ev AS (INSERT INTO ${s}.events SELECT 'acct', 'evt_' || i, 'payout.created', d::json FROM unnest($1::text[], $2::text[]) AS x(i, d))
         UPDATE ${s}.balances SET amount = amount + CASE k WHEN 'available' THEN -$3::numeric ELSE $3::numeric END`,
        [ids, ids.map((_, i) => doc(i)), String(1260063 * LEGS)],
      );
      await c.query("COMMIT");
    } finally {
      c.release();
    }
    return `${"raw SQL".padEnd(10)} ${" ".repeat(25)}${LEGS}-leg batch rows written in ${(performance.now() - start).toFixed(0).padStart(6)} ms`;
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await pool.end();
  }
}

export async function benchPayouts(): Promise<void> {
  console.log(`payouts: ${SINGLES} single payouts over ${CLIENTS} clients, then one batch of ${LEGS} legs`);
  console.log(await benchStorage("memory", createMemoryStorage()));
  console.log(await benchStorage("pglite", await openPGlite()));
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log("postgres   (set DATABASE_URL to measure a PostgreSQL server and the raw SQL baseline)");
    return;
  }
  const schema = `bench_payouts_${process.pid}`;
  try {
    console.log(await benchStorage("postgres", await connectPostgres(url, { schema, maxConnections: CLIENTS })));
  } finally {
    const pool = new pg.Pool({ connectionString: url });
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
  console.log(await rawBaseline(url));
  console.log(await statementsPerCreate(url));
}

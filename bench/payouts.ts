import pg from "pg";
import { ManualClock } from "../adapters/clock";
import { createMemoryStorage } from "../adapters/memory";
import { connectPostgres, createPostgresStorage, openPGlite, pgPoolDriver, type PgPoolLike, type PgStatement } from "../adapters/postgres";
import { createEngine, type PayrailEngine as Engine } from "../src/modules";
import type { StorageAdapter } from "../src/ports/storage";
import { systemContext, type RequestContext } from "../src/engine/context";
import { devPorts } from "../adapters/dev";
import { openPayoutFloor, type PayoutTemplate, payoutTemplate, rawPayoutFloor } from "./payout-floor";
import type { Figure } from "./table";
import { inTurns } from "./rounds";
import { dropSchema } from "./schemas";

/**
 * Payouts: single payouts created per second (4 concurrent clients, each its own Idempotency-Key
 * as through HTTP, on one account, timed after as many to warm up; on PostgreSQL also each on an
 * account of its own, with the engine's CPU per create), and the acceptance time of a 25,000-leg batch (validation,
 * planning, 25,000 reservations, payouts and events in one transaction), on memory, PGlite and
 * (DATABASE_URL) a PostgreSQL server, beside raw floors measured in the same run: the nine
 * writes of a payout by hand (`payout-floor.ts`) and the batch's rows by hand (`rawFloor`).
 */
const SINGLES = Number(process.env.BENCH_PAYOUTS ?? 1000);
const LEGS = Number(process.env.BENCH_BATCH_LEGS ?? 25_000);
const CLIENTS = 4;
/** Creates timed on many accounts, after SINGLES to warm up (`manyAccounts`), and of their floor. */
const STEADY = 2 * SINGLES;
/** The alternating rounds STEADY is timed in, on many accounts. */
const ROUNDS = 4;
const STORES = (process.env.BENCH_PAYOUTS_STORES ?? "memory,pglite,postgres").split(",");
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

async function setup(storage: StorageAdapter): Promise<{ engine: Engine } & BenchCaller> {
  const engine = await createEngine({ storage, ...devPorts({ clock: new ManualClock() }) });
  const [caller] = await fundedCallers(engine, 1, { recipients: 100 });
  return { engine, ...caller! };
}

/** A caller of the payout benches: an account's context and recipients to pay. */
export interface BenchCaller {
  ctx: RequestContext;
  recipients: string[];
}

/**
 * `count` accounts (`<prefix>-<n>`), each funded with `amount` USDC on base and given
 * `recipients` recipients, as the callers of a bench.
 */
export async function fundedCallers(
  engine: Engine,
  count: number,
  { prefix = "bench", amount = "10000000", recipients = 5 }: { prefix?: string; amount?: string; recipients?: number } = {},
): Promise<BenchCaller[]> {
  const callers: BenchCaller[] = [];
  for (let c = 0; c < count; c++) {
    const account = await engine.accounts.create({ name: `${prefix}-${c}` });
    const ctx = systemContext(account.id, false);
    (await engine.testHelpers.fund(ctx, { asset: "USDC", chain: "base", amount }))._unsafeUnwrap();
    const ids: string[] = [];
    for (let i = 0; i < recipients; i++) ids.push((await engine.recipients.create(ctx, { name: `r${i}`, chain_addresses: { base: BASE } }))._unsafeUnwrap().id);
    callers.push({ ctx, recipients: ids });
  }
  return callers;
}

/**
 * `count` payouts created by `callers` at once, each caller one at a time, under the keys
 * `<prefix>-<i>`: the i-th pays its caller's recipient i (modulo how many it has).
 */
export async function createRound(engine: Engine, callers: readonly BenchCaller[], prefix: string, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    callers.map(async ({ ctx, recipients }) => {
      while (next < count) {
        const i = next++;
        await createPayout(engine, ctx, `${prefix}-${i}`, recipients[i % recipients.length]!);
      }
    }),
  );
}

/**
 * One payout created as `POST /v1/payouts` with an Idempotency-Key creates it: the key claimed
 * first (a fresh one), then the create under that claim.
 */
export async function createPayout(engine: Engine, ctx: RequestContext, key: string, recipient: string): Promise<void> {
  const claim = (await engine.idempotency.begin(ctx.accountId, key, "f"))._unsafeUnwrap();
  if (claim.kind !== "proceed") throw new Error("fresh key expected");
  (await engine.payouts.create({ ...ctx, idempotencyKey: key, idempotency: claim.claim }, { amount: "1.5", asset: "USDC", recipient }))._unsafeUnwrap();
}

/**
 * Singles, then the batch (under an Idempotency-Key claimed beforehand, as `POST
 * /v1/payouts/batches` does, so its response is saved with it); `beforeBatch` runs just before
 * the batch (the raw floor copies the database as it then stands).
 */
async function benchStorage(
  name: string,
  storage: StorageAdapter,
  beforeBatch?: () => Promise<void>,
): Promise<{ line: string; acceptedMs: number; perSecond: number }> {
  const { engine, ctx, recipients } = await setup(storage);
  try {
    // CLIENTS callers on the one account
    const round = (prefix: string) => createRound(engine, Array(CLIENTS).fill({ ctx, recipients }), prefix, SINGLES);
    // a long-running server's steady state, as on many accounts: a round to warm up, then one timed
    await round("warm");
    let start = performance.now();
    await round("single");
    const perSecond = SINGLES / ((performance.now() - start) / 1000);

    const legs = Array.from({ length: LEGS }, (_, row) => ({ row, amount: "1.25", recipient: recipients[row % recipients.length] }));
    const claim = (await engine.idempotency.begin(ctx.accountId, "batch", "f"))._unsafeUnwrap();
    if (claim.kind !== "proceed") throw new Error("fresh key expected");
    await beforeBatch?.();
    start = performance.now();
    const batch = await engine.batches.create(
      { ...ctx, idempotencyKey: "batch", idempotency: claim.claim },
      { reference: "bench", funding: { asset: "USDC", source: "auto" }, legs },
      {},
    );
    const accepted = performance.now() - start;
    const made = batch._unsafeUnwrap();
    if (!("id" in made)) throw new Error("a batch expected");
    return {
      line: `${name.padEnd(10)} payouts created/s ${perSecond.toFixed(0).padStart(6)}   ${LEGS}-leg batch accepted in ${accepted.toFixed(0).padStart(6)} ms`,
      acceptedMs: accepted,
      perSecond,
    };
  } finally {
    await engine.close();
  }
}

/**
 * Single creates by CLIENTS callers, each paying from an account of its own (many merchants, the
 * common case: no caller waits for another's balance rows), on a PostgreSQL schema of its own,
 * beside their floor (the nine writes by hand, a session and an account per caller):
 * creates per second, and the engine process's CPU per create (`process.cpuUsage`, user and
 * system, over the engine's timed creates; the bench's callers are the engine's, as in an API
 * process). A long-running server's steady state: SINGLES creates first (compiled code, warm
 * caches) and as many payouts by hand, then twice as many of each timed, in `ROUNDS` rounds that
 * alternate (`inTurns`: the engine first in even rounds, the floor in odd ones), so that the machine's
 * swings (docs/performance.md) fall on both alike. Each figure is its creates over its rounds'
 * time; `ratios` are the rounds' own engine / floor ratios, lowest and highest.
 */
async function manyAccounts(url: string, template: PayoutTemplate): Promise<{ perSecond: number; floor: number; cpuMs: number; ratios: [number, number] }> {
  const schema = `bench_accounts_${process.pid}`;
  const engine = await createEngine({ storage: await connectPostgres(url, { schema, maxConnections: CLIENTS }), ...devPorts({ clock: new ManualClock() }) });
  try {
    const floor = await openPayoutFloor(url, template, { clients: CLIENTS, shape: "statements", accounts: CLIENTS });
    try {
      const callers = await fundedCallers(engine, CLIENTS);
      await createRound(engine, callers, "warm", SINGLES);
      await floor.round(SINGLES);
      let rounds = 0;
      const engineSide = { round: (count: number) => createRound(engine, callers, `single-${rounds++}`, count) };
      const [mine, byHand] = await inTurns([engineSide, floor], ROUNDS, STEADY / ROUNDS);
      const ratios = mine!.roundsMs.map((ms, r) => byHand!.roundsMs[r]! / ms);
      return {
        perSecond: STEADY / (mine!.wallMs / 1000),
        floor: STEADY / (byHand!.wallMs / 1000),
        cpuMs: mine!.cpuMs / STEADY,
        ratios: [Math.min(...ratios), Math.max(...ratios)],
      };
    } finally {
      await floor.close();
    }
  } finally {
    await engine.close();
    await dropSchema(url, schema);
  }
}

/**
 * Round trips of one payout create on a PostgreSQL server (its idempotency claim, the create and
 * the send of its legs, as `POST /v1/payouts` does): statements and transactions, counted by a
 * pool that sees every statement (`BENCH_SHOW_STATEMENTS=1` prints them).
 */
export async function statementsPerCreate(url: string): Promise<string> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const seen: string[] = [];
  let counting = false;
  const count = <Q extends (statement: PgStatement, params?: unknown[]) => Promise<any>>(query: Q) =>
    ((statement: PgStatement, params?: unknown[]) => {
      if (counting) seen.push(typeof statement === "string" ? statement : statement.text);
      return query(statement, params);
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
      await createPayout(engine, ctx, `count-${i}`, recipients[0]!);
      counting = false;
    }
    const transactions = seen.filter((t) => t.startsWith("BEGIN")).length;
    if (process.env.BENCH_SHOW_STATEMENTS)
      for (const t of seen) console.log(`  ${t.replace(/\s+/g, " ").slice(0, Number(process.env.BENCH_SHOW_STATEMENTS) > 1 ? undefined : 400)}`);
    return `${"postgres".padEnd(10)} one payout create (the second; caches warm): ${seen.length} statements, BEGIN and COMMIT of ${transactions} transaction${transactions === 1 ? "" : "s"} included`;
  } finally {
    await engine.close();
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

/**
 * The raw floor of a batch acceptance: exactly the rows the engine's acceptance transactions wrote
 * (a batch larger than `EngineConfig.batchSlice` is accepted in several: docs/payouts.md), written by
 * hand in one. `copy()` runs just before the engine's batch and clones the engine's schema,
 * as it then stands, into a schema of the floor's own made by the adapter's migrations (same
 * tables, indexes and constraints). `measure()` then takes every row the acceptance's
 * transactions wrote (by transaction id, `xmin`, between two ids taken around it: payouts and the
 * batch, reservations, ledger entries, balance rows, events with their payloads, due work, the
 * idempotency record) as JSON
 * text, and writes them into the clone in one transaction: the balance rows locked, then one
 * statement with one JSON parameter per table (`json_populate_recordset`): inserts for new rows,
 * updates by primary key for rows that existed (balances, the idempotency key). The time covers
 * joining the rows' JSON into the parameters, the statements and the commit.
 */
function rawFloor(url: string, engineSchema: string) {
  const raw = `bench_raw_batch_${process.pid}`;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // the acceptance's transactions (a large batch is accepted in slices): those between two ids taken around it
  const xid = async () => Number((await pool.query("SELECT txid_current() % 4294967296 AS x")).rows[0].x);
  let before = 0;
  const tablesOf = async (schema: string) =>
    (
      await pool.query(
        `SELECT c.relname AS name, array_agg(a.attname::text ORDER BY array_position(i.indkey, a.attnum)) AS pk
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
         WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname <> 'schema_migrations'
         GROUP BY c.relname ORDER BY c.relname`,
        [schema],
      )
    ).rows as { name: string; pk: string[] }[];
  return {
    async copy(): Promise<void> {
      await pool.query(`DROP SCHEMA IF EXISTS ${raw} CASCADE`);
      const storage = await connectPostgres(url, { schema: raw, maxConnections: 1 });
      await storage.init();
      await storage.close();
      for (const { name } of await tablesOf(raw)) await pool.query(`INSERT INTO ${raw}.${name} SELECT * FROM "${engineSchema}".${name}`);
      before = await xid();
    },
    async measure(): Promise<{ line: string; ms: number }> {
      const after = await xid();
      const parts: { sql: string; rows: string[] }[] = [];
      const counts: string[] = [];
      let lock: { account_id: string; asset: string } | null = null;
      for (const { name, pk } of await tablesOf(raw)) {
        const written = (
          await pool.query(
            `SELECT row_to_json(w)::text AS row, EXISTS (SELECT 1 FROM ${raw}.${name} r WHERE (${pk.map((c) => `r.${c}`).join(", ")}) = (${pk.map((c) => `w.${c}`).join(", ")})) AS existed
             FROM "${engineSchema}".${name} w WHERE w.xmin::text::bigint > $1 AND w.xmin::text::bigint < $2`,
            [before, after],
          )
        ).rows as { row: string; existed: boolean }[];
        if (!written.length) continue;
        counts.push(`${name} ${written.length}`);
        if (name === "balances") lock = JSON.parse(written[0]!.row) as { account_id: string; asset: string };
        const fresh = written.filter((w) => !w.existed).map((w) => w.row);
        const existing = written.filter((w) => w.existed).map((w) => w.row);
        if (fresh.length) parts.push({ sql: `INSERT INTO ${raw}.${name} SELECT * FROM json_populate_recordset(NULL::${raw}.${name}, $1::json)`, rows: fresh });
        if (existing.length) {
          const columns = (
            await pool.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`, [
              raw,
              name,
            ])
          ).rows.map((r) => r.column_name as string);
          parts.push({
            sql: `UPDATE ${raw}.${name} t SET (${columns.join(", ")}) = (${columns.map((c) => `x.${c}`).join(", ")})
              FROM json_populate_recordset(NULL::${raw}.${name}, $1::json) x WHERE (${pk.map((c) => `t.${c}`).join(", ")}) = (${pk.map((c) => `x.${c}`).join(", ")})`,
            rows: existing,
          });
        }
      }
      const balance = lock as { account_id: string; asset: string } | null;
      const c = await pool.connect();
      const start = performance.now();
      try {
        await c.query("BEGIN");
        if (balance) {
          await c.query(`SELECT * FROM ${raw}.balances WHERE account_id = $1 AND asset = $2 ORDER BY account_id, asset, chain, book FOR UPDATE`, [
            balance.account_id,
            balance.asset,
          ]);
        }
        const params = parts.map((p) => `[${p.rows.join(",")}]`);
        const ctes = parts.map((p, i) => `w${i} AS (${p.sql.replace("$1", `$${i + 1}`)} RETURNING 1)`);
        await c.query(`WITH ${ctes.join(",\n")} SELECT ${parts.map((_, i) => `(SELECT count(*) FROM w${i})`).join(", ")}`, params);
        await c.query("COMMIT");
      } finally {
        c.release();
      }
      const ms = performance.now() - start;
      return { line: `${"raw SQL".padEnd(10)} ${" ".repeat(25)}${LEGS}-leg batch rows written in ${ms.toFixed(0).padStart(6)} ms (${counts.join(", ")})`, ms };
    },
    async close(): Promise<void> {
      await pool.query(`DROP SCHEMA IF EXISTS ${raw} CASCADE`);
      await pool.end();
    },
  };
}

export async function benchPayouts(): Promise<Figure[]> {
  console.log(`payouts: ${SINGLES} single payouts over ${CLIENTS} clients, then one batch of ${LEGS} legs`);
  const figures: Figure[] = [];
  const singles = (store: string, perSecond: number, floor?: Figure["floor"]): Figure => ({
    name: `single payouts created (${CLIENTS} callers, 1 account)`,
    store,
    value: perSecond,
    unit: "/s",
    ...(floor ? { floor, target: { ratio: { min: 1.0 } } } : {}),
  });
  const accepted = (store: string, ms: number, floor?: Figure["floor"]): Figure => ({
    name: `${LEGS.toLocaleString("en-US")}-leg batch accepted`,
    store,
    value: ms / 1000,
    unit: "s",
    ...(floor ? { floor, target: { ratio: { max: 2 } } } : {}),
  });
  for (const store of ["memory", "pglite"] as const) {
    if (!STORES.includes(store)) continue;
    const run = await benchStorage(store, store === "memory" ? createMemoryStorage() : await openPGlite());
    console.log(run.line);
    figures.push(singles(store, run.perSecond), accepted(store, run.acceptedMs));
  }
  const url = process.env.DATABASE_URL;
  if (!STORES.includes("postgres")) return figures;
  if (!url) {
    console.log("postgres   (set DATABASE_URL to measure a PostgreSQL server and the raw SQL baseline)");
    return figures;
  }
  const schema = `bench_payouts_${process.pid}`;
  const floor = rawFloor(url, schema);
  try {
    const engine = await benchStorage("postgres", await connectPostgres(url, { schema, maxConnections: CLIENTS }), () => floor.copy());
    console.log(engine.line);
    const template = await payoutTemplate();
    const nine = await rawPayoutFloor(url, template, { clients: CLIENTS, ops: SINGLES, shape: "statements" });
    const one = await rawPayoutFloor(url, template, { clients: CLIENTS, ops: SINGLES, shape: "one" });
    console.log(
      `${"raw SQL".padEnd(10)} payouts created/s ${nine.toFixed(0).padStart(6)}   (the nine writes, a statement each, BEGIN … COMMIT: 11 round trips)`,
    );
    console.log(`${"raw SQL".padEnd(10)} payouts created/s ${one.toFixed(0).padStart(6)}   (the nine writes as one statement: 1 round trip)`);
    const many = await manyAccounts(url, template);
    console.log(
      `${"postgres".padEnd(10)} payouts created/s ${many.perSecond.toFixed(0).padStart(6)}   (${CLIENTS} callers, an account each; engine CPU ${many.cpuMs.toFixed(2)} ms per create)`,
    );
    console.log(
      `${"raw SQL".padEnd(10)} payouts created/s ${many.floor.toFixed(0).padStart(6)}   (the nine writes, a statement each, BEGIN … COMMIT, ${CLIENTS} accounts; ` +
        `in ${ROUNDS} rounds alternating with the engine's, whose own ratios ran ${many.ratios[0].toFixed(2)} to ${many.ratios[1].toFixed(2)} ×)`,
    );
    const raw = await floor.measure();
    console.log(raw.line);
    console.log(`${"postgres".padEnd(10)} ${" ".repeat(25)}${LEGS}-leg batch accepted / raw rows written: ${(engine.acceptedMs / raw.ms).toFixed(2)}`);
    figures.push(
      singles("postgres", engine.perSecond, { value: nine, what: "9 writes by hand" }),
      { ...singles("postgres", engine.perSecond, { value: one, what: "9 writes as one statement" }), target: {} },
      {
        name: `single payouts created (${CLIENTS} callers, an account each)`,
        store: "postgres",
        value: many.perSecond,
        unit: "/s",
        floor: { value: many.floor, what: `9 writes by hand, ${CLIENTS} accounts` },
        target: { ratio: { min: 0.6 } },
      },
      { name: "engine CPU per create (an account each)", store: "postgres", value: many.cpuMs, unit: "ms" },
      accepted("postgres", engine.acceptedMs, { value: raw.ms / 1000, what: "its rows by hand" }),
    );
  } finally {
    await floor.close();
    await dropSchema(url, schema);
  }
  console.log(await statementsPerCreate(url));
  return figures;
}

import type { SqlClient } from "./driver";
import type { PgTxContext, Row } from "./pg-tx";

/**
 * The partitioned layout (`PostgresStorageOptions.partitions`): the tables that grow with
 * traffic, hash-partitioned by account on one server: the layout Citus distributes
 * (docs/scaling.md). PostgreSQL requires the partition key in every primary and unique key of a
 * partitioned table, which is Citus' rule for a distributed one, so a schema that takes this
 * layout is one Citus can distribute by account.
 */

/** Account-owned tables hash-partitioned by `account_id` (Citus: distributed, co-located by account). */
export const HASHED_TABLES = ["balances", "ledger_entries", "reservations", "resources", "idempotency_keys", "due_work"] as const;

/**
 * Time-ordered account-owned tables: range-partitioned by day on `created`, each day (and the
 * default partition) hash-partitioned by `account_id`; retention drops whole days.
 */
export const DAILY_TABLES = ["events", "webhook_deliveries"] as const;

export const DAY_MS = 86_400_000;

/** A statement runner: the migration's session, or a transaction's `run`. */
type Run = (text: string, params?: unknown[]) => Promise<{ rows: Row[] }>;

/**
 * Converts the big tables of `schema` to the partitioned layout with `partitions` hash
 * partitions each; tables already partitioned are left alone, so it runs at every `init` (in its
 * migration transaction) and converts an existing database once, rows and all. Keys and indexes
 * keep their names; the daily tables' primary keys gain `created` (a key of a range-partitioned
 * table must hold the range's column too).
 */
export async function partitionTables(c: SqlClient, schema: string, partitions: number): Promise<void> {
  const s = `"${schema}"`;
  const all: string[] = [...HASHED_TABLES, ...DAILY_TABLES];
  const plain = (
    await c.query<Row>(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND c.relkind = 'r'`,
      [schema, all],
    )
  ).rows.map((r) => String(r.relname));
  if (!plain.length) return;
  const keys = (
    await c.query<Row>(
      `SELECT t.relname AS table, k.conname, pg_get_constraintdef(k.oid) AS def FROM pg_constraint k
       JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
       WHERE n.nspname = $1 AND t.relname = ANY($2::text[]) AND k.contype IN ('p', 'u') ORDER BY k.contype, k.conname`,
      [schema, plain],
    )
  ).rows;
  const indexes = (
    await c.query<Row>(
      `SELECT tablename AS table, indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = ANY($2::text[]) ORDER BY indexname`,
      [schema, plain],
    )
  ).rows.filter((i) => !keys.some((k) => k.table === i.table && k.conname === i.indexname));
  // one script: a conversion costs one round trip, not one per partition
  const sql: string[] = [];
  for (const table of all.filter((t) => plain.includes(t))) {
    const daily = (DAILY_TABLES as readonly string[]).includes(table);
    const tmp = `${table}__partitioned`;
    sql.push(
      `CREATE TABLE ${s}.${tmp} (LIKE ${s}.${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY ${daily ? "RANGE (created)" : "HASH (account_id)"}`,
    );
    if (daily) sql.push(...hashedDefault(s, tmp, `${table}_default`, partitions));
    else for (let i = 0; i < partitions; i++) sql.push(hashPartition(s, tmp, `${table}_h${i}`, partitions, i));
    sql.push(`INSERT INTO ${s}.${tmp} SELECT * FROM ${s}.${table}`, `DROP TABLE ${s}.${table}`, `ALTER TABLE ${s}.${tmp} RENAME TO ${table}`);
    for (const k of keys.filter((k) => k.table === table)) {
      const def = daily && !/\bcreated\b/.test(k.def) ? String(k.def).replace(/\)$/, ", created)") : k.def;
      sql.push(`ALTER TABLE ${s}.${table} ADD CONSTRAINT ${k.conname} ${def}`);
    }
    for (const i of indexes.filter((i) => i.table === table)) sql.push(i.indexdef);
  }
  await c.exec(`${sql.join(";\n")};`);
  const run: Run = (text, params) => c.query<Row>(text, params);
  for (const table of DAILY_TABLES) if (plain.includes(table)) await rollDays(run, s, table, partitions);
}

/** How many hash partitions each big table of the schema has (0: the plain layout). */
export async function partitionCount(c: SqlClient, schema: string): Promise<number> {
  const { rows } = await c.query<Row>(
    `SELECT count(*)::int AS n FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace n ON n.oid = p.relnamespace
     WHERE n.nspname = $1 AND p.relname = 'resources'`,
    [schema],
  );
  return Number(rows[0]?.n ?? 0);
}

function hashPartition(s: string, parent: string, name: string, modulus: number, remainder: number): string {
  return `CREATE TABLE ${s}.${name} PARTITION OF ${s}.${parent} FOR VALUES WITH (MODULUS ${modulus}, REMAINDER ${remainder})`;
}

/** The default partition of `parent`, itself hash-partitioned by account. */
function hashedDefault(s: string, parent: string, name: string, partitions: number): string[] {
  const sql = [`CREATE TABLE ${s}.${name} PARTITION OF ${s}.${parent} DEFAULT PARTITION BY HASH (account_id)`];
  for (let i = 0; i < partitions; i++) sql.push(hashPartition(s, name, `${name}_h${i}`, partitions, i));
  return sql;
}

/** The day partitions of a daily table, by day number (days since the epoch), from their names `<table>_d<day>`. */
async function dayPartitions(run: Run, s: string, table: string): Promise<number[]> {
  const { rows } = await run(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass AND c.relname ~ $2`, [
    `${s}.${table}`,
    `^${table}_d[0-9]+$`,
  ]);
  return rows.map((r) => Number(String(r.relname).slice(table.length + 2))).sort((a, b) => a - b);
}

/** The days `rollDays` makes: those with rows in the default partition, and the two after the newest row's day, less those made. */
async function daysToMake(run: Run, s: string, table: string): Promise<number[]> {
  const waiting = (await run(`SELECT DISTINCT floor(created / ${DAY_MS})::int AS day FROM ${s}.${table}_default`)).rows.map((r) => Number(r.day));
  const existing = await dayPartitions(run, s, table);
  // the days ahead follow the newest row, not the newest partition (which would run ahead at every sweep)
  const last = (await run(`SELECT floor(max(created) / ${DAY_MS})::int AS day FROM ${s}.${table}`)).rows[0]?.day;
  const wanted = new Set(waiting);
  if (last !== null && last !== undefined) for (const d of [Number(last) + 1, Number(last) + 2]) if (!existing.includes(d)) wanted.add(d);
  return [...wanted].sort((a, b) => a - b);
}

/**
 * Gives every day that has rows in the default partition its own partition (moving those rows
 * into it), and the two days after the newest row's day one too, so new rows land in a day of
 * their own (the default partition only takes rows of days no sweep has made yet).
 * The default partition is locked while it runs, so no row of a day being made lands in it meanwhile.
 */
async function rollDays(run: Run, s: string, table: string, partitions: number): Promise<void> {
  // most sweeps find nothing to make, and then lock nothing
  if (!(await daysToMake(run, s, table)).length) return;
  await run(`LOCK TABLE ${s}.${table}_default IN ACCESS EXCLUSIVE MODE`);
  const wanted = await daysToMake(run, s, table);
  for (const day of wanted) {
    const name = `${table}_d${day}`;
    const bound = `FROM (${day * DAY_MS}) TO (${(day + 1) * DAY_MS})`;
    // built apart, filled from the default partition, then attached (attaching checks the bounds)
    await run(`CREATE TABLE ${s}.${name} (LIKE ${s}.${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY HASH (account_id)`);
    for (let i = 0; i < partitions; i++) await run(hashPartition(s, name, `${name}_h${i}`, partitions, i));
    await run(
      `WITH moved AS (DELETE FROM ${s}.${table}_default WHERE created >= $1 AND created < $2 RETURNING *) INSERT INTO ${s}.${name} SELECT * FROM moved`,
      [day * DAY_MS, (day + 1) * DAY_MS],
    );
    await run(`ALTER TABLE ${s}.${table} ATTACH PARTITION ${s}.${name} FOR VALUES ${bound}`);
  }
}

/**
 * Retention of a daily table (`events`, `webhook_deliveries`, keyed by `(account_id, id)`): rows
 * created before `before`, at most `limit` deleted one by one. In the plain layout it is that
 * delete alone. In the partitioned one, one sweep at a time per table (an advisory lock), it rolls
 * the days (`rollDays`), drops every day partition that ends at or before `before` whole
 * (counting its rows), then deletes what is left before `before` (rows of the day `before` falls
 * in). Returns how many rows went.
 */
export async function pruneDaily(tx: PgTxContext, table: (typeof DAILY_TABLES)[number], before: number, limit: number): Promise<number> {
  const key = "account_id, id";
  const { partitions } = tx;
  if (!partitions) return tx.prune(table, key, "created < $1", before, limit);
  const s = tx.s;
  const run: Run = (text, params) => tx.run(text, params);
  await run(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`payrail.partitions:${s}.${table}`]);
  await rollDays(run, s, table, partitions);
  let dropped = 0;
  for (const day of await dayPartitions(run, s, table)) {
    if ((day + 1) * DAY_MS > before) break;
    dropped += Number((await run(`SELECT count(*) AS n FROM ${s}.${table}_d${day}`)).rows[0]?.n ?? 0);
    await run(`DROP TABLE ${s}.${table}_d${day}`);
  }
  return dropped + (await tx.prune(table, key, "created < $1", before, limit));
}

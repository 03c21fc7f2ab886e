import { PGlite } from "@electric-sql/pglite";
import fc from "fast-check";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStorage, pgPoolDriver, pgliteDriver, MIGRATIONS, type PGliteLike, type PostgresDriver } from "../../../adapters/postgres";
import { DAILY_TABLES, DAY_MS, HASHED_TABLES } from "../../../adapters/postgres/layout";
import type { DueWorkRecord, EventRecord } from "../../../src/ports";

/**
 * The layout Citus distributes (docs/scaling.md), on the server when DATABASE_URL is set and on
 * PGlite otherwise: every key of the big tables carries the account, a plain schema converts to
 * hash partitions by account with its rows, keys and indexes, retention drops whole days, and a
 * database made before migration 20 keeps its due work.
 */
const T0 = Date.UTC(2026, 0, 1);
const BIG = [...HASHED_TABLES, ...DAILY_TABLES];
let pool: pg.Pool | null = null;
let lite: PGlite | null = null;
let seq = 0;

async function driver(): Promise<PostgresDriver> {
  if (process.env.DATABASE_URL) {
    pool ??= new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    return pgPoolDriver(pool, { ownsPool: false });
  }
  lite ??= await PGlite.create();
  return pgliteDriver(lite as unknown as PGliteLike, { ownsDatabase: false });
}

const schemas: string[] = [];
async function open(schema: string, partitions?: number): Promise<PostgresStorage> {
  if (!schemas.includes(schema)) schemas.push(schema);
  const storage = new PostgresStorage(await driver(), partitions ? { schema, partitions } : { schema });
  await storage.init();
  return storage;
}
const newSchema = () => `t_layout_${process.pid}_${Date.now().toString(36)}_${seq++}`;

afterAll(async () => {
  const d = await driver();
  for (const s of schemas) await d.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await pool?.end();
  await lite?.close();
});

const evt = (accountId: string, n: number, created: number): EventRecord => ({
  accountId,
  id: `evt_${String(n).padStart(26, "0")}`,
  type: "balance.updated",
  created,
  livemode: false,
  data: { n },
  request: { id: null, idempotency_key: null },
});

const job = (id: string, accountId: string | null, dedupeKey: string | null): DueWorkRecord => ({
  id,
  kind: "test.work",
  accountId,
  livemode: accountId === null ? null : false,
  payload: {},
  runAt: T0,
  leaseOwner: null,
  leaseUntil: null,
  attempts: 0,
  lastError: null,
  status: "ready",
  dedupeKey,
  group: null,
  request: null,
  created: T0,
});

/** Each table's primary and unique keys as their column lists. */
async function keysOf(storage: PostgresStorage): Promise<Map<string, string[][]>> {
  const { rows } = await storage.driver.query<{ table: string; cols: string[] }>(
    `SELECT t.relname AS table, array_agg(a.attname::text ORDER BY k.ord) AS cols
     FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
     WHERE n.nspname = $1 AND c.contype IN ('p', 'u') AND t.relname = ANY($2::text[]) GROUP BY t.relname, c.oid`,
    [storage.schema, BIG],
  );
  const out = new Map<string, string[][]>();
  for (const r of rows) out.set(r.table, [...(out.get(r.table) ?? []), r.cols]);
  return out;
}

async function dayPartitions(storage: PostgresStorage, table: string): Promise<number[]> {
  const { rows } = await storage.driver.query<{ relname: string }>(
    `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
    [`"${storage.schema}".${table}`],
  );
  return rows
    .map((r) => r.relname)
    .filter((n) => /_d[0-9]+$/.test(n))
    .map((n) => Number(n.slice(n.lastIndexOf("_d") + 2)))
    .sort((a, b) => a - b);
}

describe("the partitioned layout (Citus-ready schema)", () => {
  it("leads every primary and unique key of the big tables with the account", async () => {
    const storage = await open(newSchema());
    const keys = await keysOf(storage);
    expect([...keys.keys()].sort()).toEqual([...BIG].sort());
    for (const [table, list] of keys) for (const cols of list) expect([table, cols[0]]).toEqual([table, "account_id"]);
    await storage.close();
  }, 120_000);

  it("converts a plain schema with its rows: partitions by account, keys and index names kept", async () => {
    const schema = newSchema();
    const plain = await open(schema);
    const indexNames = async (s: PostgresStorage) =>
      (await s.driver.query<{ n: string }>(`SELECT indexname AS n FROM pg_indexes WHERE schemaname = $1 AND tablename = ANY($2::text[])`, [schema, BIG])).rows
        .map((r) => r.n)
        .sort();
    const before = await indexNames(plain);
    const events = [evt("acct_a", 1, T0), evt("acct_b", 2, T0 + DAY_MS + 5), evt("acct_a", 3, T0 + 2 * DAY_MS)];
    await plain.transaction(async (tx) => {
      await tx.events.insert(events);
      await tx.work.enqueue([job("job_1", "acct_a", "k"), job("job_2", null, "k")]);
    });
    await plain.close();

    const partitioned = await open(schema, 3);
    const { rows } = await partitioned.driver.query<{ relname: string; relkind: string; parts: number }>(
      `SELECT c.relname, c.relkind, (SELECT count(*)::int FROM pg_inherits i WHERE i.inhparent = c.oid) AS parts
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2::text[])`,
      [schema, BIG],
    );
    for (const r of rows) {
      expect(r.relkind).toBe("p");
      if ((HASHED_TABLES as readonly string[]).includes(r.relname)) expect(r.parts).toBe(3);
    }
    expect(await indexNames(partitioned)).toEqual(before);
    const day0 = Math.floor(T0 / DAY_MS);
    expect(await dayPartitions(partitioned, "events")).toEqual([day0, day0 + 1, day0 + 2, day0 + 3, day0 + 4]);
    // sweeps that remove nothing make no more days: the days ahead follow the newest row
    for (let i = 0; i < 3; i++) expect(await partitioned.transaction((tx) => tx.events.pruneBefore(T0 - DAY_MS, 100))).toBe(0);
    expect(await dayPartitions(partitioned, "events")).toEqual([day0, day0 + 1, day0 + 2, day0 + 3, day0 + 4]);
    for (const e of events) expect(await partitioned.transaction((tx) => tx.events.get(e.accountId, e.id))).toEqual(e);
    expect(await partitioned.transaction((tx) => tx.work.get("job_2"))).toMatchObject({ accountId: null, dedupeKey: "k" });
    await partitioned.close();
    // opened again without the option, it keeps its layout
    const again = await open(schema);
    expect((await keysOf(again)).get("events")).toEqual([["account_id", "id", "created"]]);
    await again.close();
  }, 120_000);

  it("drops whole days past retention, and prunes exactly what was created before the moment", async () => {
    const storage = await open(newSchema(), 2);
    const day0 = Math.floor(T0 / DAY_MS);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 6 * DAY_MS - 1 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 7 * DAY_MS }),
        async (offsets, cut) => {
          const events = offsets.map((o) => evt(n % 2 ? "acct_a" : "acct_b", n++, T0 + o));
          await storage.transaction((tx) => tx.events.insert(events));
          let pruned = 0;
          for (let got = 1_000; got >= 1_000; pruned += got) got = await storage.transaction((tx) => tx.events.pruneBefore(T0 + cut, 1_000));
          expect(pruned).toBe(offsets.filter((o) => o < cut).length);
          const days = await dayPartitions(storage, "events");
          expect(days.every((d) => (d + 1) * DAY_MS > T0 + cut)).toBe(true);
          const left = await storage.transaction((tx) =>
            tx.events.getMany(
              "acct_a",
              events.map((e) => e.id),
            ),
          );
          expect(left.map((e) => e.id).sort()).toEqual(
            events
              .filter((e, i) => e.accountId === "acct_a" && offsets[i]! >= cut)
              .map((e) => e.id)
              .sort(),
          );
          // the next run starts empty
          await storage.transaction((tx) => tx.events.pruneBefore(T0 + 100 * DAY_MS, 100_000));
          expect((await dayPartitions(storage, "events")).every((d) => d > day0 + 6)).toBe(true);
        },
      ),
      { numRuns: 6 },
    );
    await storage.close();
  }, 300_000);

  it("keeps the due work of a database made before migration 20, the engine's under the account ''", async () => {
    const schema = newSchema();
    schemas.push(schema);
    const s = `"${schema}"`;
    const d = await driver();
    await d.transaction(async (c) => {
      await c.exec(
        `CREATE SCHEMA ${s}; CREATE TABLE ${s}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      for (const m of MIGRATIONS.filter((m) => m.version < 20)) {
        await c.exec(m.sql.replaceAll("{s}", s));
        await c.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      }
      await c.exec(`INSERT INTO ${s}.due_work (id, kind, account_id, livemode, payload, run_at, status, dedupe_key, created) VALUES
        ('job_engine', 'maintenance.prune', NULL, NULL, '{}', ${T0}, 'ready', 'maintenance.prune', ${T0}),
        ('job_acct', 'payout.track', 'acct_a', false, '{}', ${T0}, 'ready', 'payout.track:x', ${T0})`);
    });
    const storage = await open(schema);
    expect(await storage.transaction((tx) => tx.work.get("job_engine"))).toMatchObject({ accountId: null, livemode: null, dedupeKey: "maintenance.prune" });
    expect(await storage.transaction((tx) => tx.work.get("job_acct"))).toMatchObject({ accountId: "acct_a", dedupeKey: "payout.track:x" });
    // the engine's dedupe key still holds: its next item is skipped
    await storage.transaction((tx) => tx.work.enqueue([job("job_engine2", null, "maintenance.prune")]));
    expect(await storage.transaction((tx) => tx.work.get("job_engine2"))).toBeNull();
    expect((await keysOf(storage)).get("due_work")?.sort()).toEqual([
      ["account_id", "dedupe_key"],
      ["account_id", "id"],
    ]);
    await storage.close();
  }, 120_000);
});

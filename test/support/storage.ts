import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { MemoryStorage } from "../../adapters/memory";
import { PostgresStorage, pgPoolDriver, pgliteDriver, pgliteThreadDriver, type PGliteLike, type PostgresDriver, type SqlClient } from "../../adapters/postgres";
import type { StorageHarness, StorageInspector } from "../../src/conformance";
import { compareStateKeys } from "../../src/ports";

/**
 * The storage adapters every storage-touching test runs on: memory, PGlite, and a real
 * PostgreSQL server when DATABASE_URL is set. Each test file shares one PGlite instance and one
 * pool; each harness gets its own schema, dropped on close.
 */
export interface StorageKind {
  name: string;
  factory: () => Promise<StorageHarness>;
}

let pglite: Promise<PGlite> | null = null;
let pgliteThread: Promise<PostgresDriver> | null = null;
let pool: pg.Pool | null = null;
let schemaSeq = 0;

function sharedPGlite(): Promise<PGlite> {
  pglite ??= PGlite.create();
  return pglite;
}

function sharedPool(): pg.Pool {
  if (!pool) {
    pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
    pool.on("error", () => undefined);
  }
  return pool;
}

function schemaName(): string {
  return `t_${process.pid}_${Date.now().toString(36)}_${schemaSeq++}`;
}

export function storageKinds(): StorageKind[] {
  const kinds: StorageKind[] = [
    {
      name: "memory",
      factory: async () => {
        const storage = new MemoryStorage();
        return { storage, inspect: memoryInspector(storage), close: async () => undefined };
      },
    },
    {
      name: "pglite",
      factory: async () => {
        const db = await sharedPGlite();
        const schema = schemaName();
        const driver = pgliteDriver(db as unknown as PGliteLike, { ownsDatabase: false });
        const storage = new PostgresStorage(driver, { schema });
        return {
          storage,
          inspect: sqlInspector({ query: (t, p) => driver.query(t, p), exec: async () => undefined }, schema),
          close: () => driver.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).then(() => undefined),
        };
      },
    },
  ];
  if (process.env.DATABASE_URL) kinds.push(serverKind("postgres"));
  return kinds;
}

/**
 * PGlite in a worker thread of its own (`openPGlite(dir, { thread: true })`), one per test file
 * shared by its harnesses (each its own schema), as `storageKinds` shares PGlite.
 */
export function threadedPGliteKinds(): StorageKind[] {
  return [
    {
      name: "pglite in a worker thread",
      factory: async () => {
        const driver = await (pgliteThread ??= pgliteThreadDriver());
        const schema = schemaName();
        // the storage's close must not end the shared thread: closeSharedStorage does
        const storage = new PostgresStorage({ ...driver, close: async () => undefined }, { schema });
        return {
          storage,
          inspect: sqlInspector({ query: (t, p) => driver.query(t, p), exec: async () => undefined }, schema),
          close: () => driver.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).then(() => undefined),
        };
      },
    },
  ];
}

/**
 * The PostgreSQL server with the big tables hash-partitioned by account into `partitions`
 * (the layout Citus distributes, docs/scaling.md); only when DATABASE_URL is set.
 */
export function partitionedKinds(partitions: number): StorageKind[] {
  return process.env.DATABASE_URL ? [serverKind(`postgres partitioned by account (${partitions})`, partitions)] : [];
}

function serverKind(name: string, partitions?: number): StorageKind {
  return {
    name,
    factory: async () => {
      const p = sharedPool();
      const schema = schemaName();
      // background work capped below the pool, as connectPostgres does, so the suites run with the cap
      const driver = pgPoolDriver(p, { ownsPool: false, backgroundSessions: 18 });
      const storage = new PostgresStorage(driver, partitions ? { schema, partitions } : { schema });
      return {
        storage,
        inspect: sqlInspector(driver as unknown as SqlClient, schema),
        close: () => p.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).then(() => undefined),
      };
    },
  };
}

/** Closes the shared PGlite and pool; call from a file's afterAll. */
export async function closeSharedStorage(): Promise<void> {
  const db = pglite;
  pglite = null;
  if (db) await (await db).close();
  const thread = pgliteThread;
  pgliteThread = null;
  if (thread) await (await thread).close();
  const p = pool;
  pool = null;
  if (p) await p.end();
}

function memoryInspector(storage: MemoryStorage): StorageInspector {
  const of = <T extends { accountId: string | null }>(rows: Iterable<T>, accountId: string) => [...rows].filter((r) => r.accountId === accountId);
  return {
    balances: async (a) => of(storage.dump().balances.values(), a),
    entries: async (a) => of(storage.dump().entries, a),
    reservations: async (a) => of(storage.dump().reservations.values(), a),
    resources: async (a) => of(storage.dump().resources.values(), a),
    events: async (a) => of(storage.dump().events.values(), a),
    idempotencyKeys: async (a) => of(storage.dump().idempotency.values(), a),
    work: async () => [...storage.dump().work.values()],
    deliveries: async (a) => of(storage.dump().deliveries.values(), a),
    adapterState: async (namespace) =>
      [...(storage.dump().adapterState.get(namespace) ?? new Map()).entries()]
        .sort(([a], [b]) => compareStateKeys(a, b))
        .map(([key, value]) => ({ key, value })),
  };
}

/** Reads the tables with its own SQL and its own row mapping: independent of the adapter's. */
function sqlInspector(db: SqlClient, schema: string): StorageInspector {
  const q = async (sql: string, params: unknown[] = []) => (await db.query<any>(sql.replaceAll("$S", `"${schema}"`), params)).rows;
  const n = (v: unknown) => (v === null ? null : Number(v));
  return {
    balances: async (a) =>
      (await q(`SELECT * FROM $S.balances WHERE account_id = $1 ORDER BY asset, chain, book`, [a])).map((r) => ({
        accountId: r.account_id,
        asset: r.asset,
        chain: r.chain,
        book: r.book,
        amount: BigInt(r.amount),
      })),
    entries: async (a) =>
      (await q(`SELECT * FROM $S.ledger_entries WHERE account_id = $1 ORDER BY created, id`, [a])).map((r) => ({
        id: r.id,
        accountId: r.account_id,
        postingId: r.posting_id,
        line: Number(r.line),
        asset: r.asset,
        chain: r.chain,
        book: r.book,
        amount: BigInt(r.amount),
        resource: r.resource,
        created: Number(r.created),
      })),
    reservations: async (a) =>
      (await q(`SELECT * FROM $S.reservations WHERE account_id = $1 ORDER BY created, id`, [a])).map((r) => ({
        id: r.id,
        accountId: r.account_id,
        asset: r.asset,
        chain: r.chain,
        amount: BigInt(r.amount),
        remaining: BigInt(r.remaining),
        status: r.status,
        resource: r.resource,
        created: Number(r.created),
        resolvedAt: n(r.resolved_at),
      })),
    resources: async (a) =>
      (await q(`SELECT * FROM $S.resources WHERE account_id = $1 ORDER BY created DESC, id DESC`, [a])).map((r) => ({
        accountId: r.account_id,
        kind: r.kind,
        id: r.id,
        created: Number(r.created),
        status: r.status,
        reference: r.reference,
        data: r.data,
        version: Number(r.version),
        updated: Number(r.updated),
      })),
    events: async (a) =>
      (await q(`SELECT * FROM $S.events WHERE account_id = $1 ORDER BY created, id`, [a])).map((r) => ({
        accountId: r.account_id,
        id: r.id,
        type: r.type,
        created: Number(r.created),
        livemode: r.livemode,
        data: r.data,
        request: r.request,
      })),
    idempotencyKeys: async (a) =>
      (await q(`SELECT * FROM $S.idempotency_keys WHERE account_id = $1 ORDER BY key`, [a])).map((r) => ({
        accountId: r.account_id,
        key: r.key,
        fingerprint: r.fingerprint,
        lockedAt: n(r.locked_at),
        response: r.response,
        created: Number(r.created),
        expiresAt: Number(r.expires_at),
        owner: r.owner,
      })),
    work: async () =>
      (await q(`SELECT * FROM $S.due_work ORDER BY run_at, id`)).map((r) => ({
        id: r.id,
        kind: r.kind,
        // the engine's own work is kept under the account '' (migration 20)
        accountId: r.account_id === "" ? null : r.account_id,
        livemode: r.livemode,
        payload: r.payload,
        runAt: Number(r.run_at),
        leaseOwner: r.lease_owner,
        leaseUntil: n(r.lease_until),
        attempts: Number(r.attempts),
        lastError: r.last_error,
        status: r.status,
        dedupeKey: r.dedupe_key,
        group: r.group_key,
        request: r.request,
        created: Number(r.created),
      })),
    deliveries: async (a) =>
      (await q(`SELECT * FROM $S.webhook_deliveries WHERE account_id = $1 ORDER BY created, id`, [a])).map((r) => ({
        accountId: r.account_id,
        id: r.id,
        endpointId: r.endpoint_id,
        eventId: r.event_id,
        eventType: r.event_type,
        attempt: Number(r.attempt),
        trigger: r.trigger,
        status: r.status,
        responseStatus: n(r.response_status),
        latencyMs: Number(r.latency_ms),
        error: r.error,
        created: Number(r.created),
        nextAttemptAt: n(r.next_attempt_at),
      })),
    adapterState: async (namespace) =>
      (await q(`SELECT key, value::text AS value FROM $S.adapter_state WHERE namespace = $1 ORDER BY key COLLATE "C"`, [namespace])).map((r) => ({
        key: r.key,
        value: JSON.parse(r.value),
      })),
  };
}

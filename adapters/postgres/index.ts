import { pgPoolDriver, type PgPoolLike } from "./pg-pool-driver";
import { pgliteDriver, type PGliteLike } from "./pglite-driver";
import { pgliteThreadDriver } from "./pglite-thread";
import { PostgresStorage, type PostgresStorageOptions } from "./postgres-storage";

export { PostgresStorage, sqlState, type PostgresStorageOptions } from "./postgres-storage";
export type { PostgresDriver, SqlClient, TxClient } from "./driver";
export { pgPoolDriver, type PgPoolLike, type PgPoolClientLike, type PgPoolDriverOptions, type PgStatement } from "./pg-pool-driver";
export { pgliteDriver, type PGliteLike } from "./pglite-driver";
export { pgliteThreadDriver, type PGliteThreadOptions } from "./pglite-thread";
export { MIGRATIONS, type Migration } from "./migrations";
export { classifyUnavailable } from "./unavailable";

/** Storage on a driver you built (`pgPoolDriver(pool)` or `pgliteDriver(db)`). */
export function createPostgresStorage(options: PostgresStorageOptions): PostgresStorage {
  const { driver, ...rest } = options;
  return new PostgresStorage(driver, rest);
}

/**
 * Storage on a PostgreSQL server: opens a `pg` pool on `connectionString` (`pg` is an optional
 * peer dependency, loaded only here).
 */
export async function connectPostgres(
  connectionString: string,
  options: Omit<PostgresStorageOptions, "driver"> & { maxConnections?: number; namedStatements?: boolean } = {},
): Promise<PostgresStorage> {
  const pg = await import("pg");
  const Pool = (pg.default?.Pool ?? (pg as unknown as { Pool: typeof pg.Pool }).Pool) as typeof pg.Pool;
  const max = options.maxConnections ?? 10;
  // sessions show as `payrail` in pg_stat_activity unless the URL names them (`?application_name=…`)
  const pool = new Pool({ connectionString, max, application_name: "payrail" });
  pool.on("error", () => undefined); // an idle session dropped by the server; the pool replaces it
  const { maxConnections: _, namedStatements, ...rest } = options;
  // background work leaves two sessions to requests (one when the pool is that small)
  const backgroundSessions = Math.max(1, max - (max > 2 ? 2 : 1));
  const driver = pgPoolDriver(pool as unknown as PgPoolLike, { backgroundSessions, ...(namedStatements !== undefined ? { namedStatements } : {}) });
  return new PostgresStorage(driver, rest);
}

/** How `openPGlite` runs PGlite. */
export interface OpenPGliteOptions extends Omit<PostgresStorageOptions, "driver"> {
  /**
   * Run PGlite in a worker thread of its own (`pgliteThreadDriver`), so its work never stops
   * this thread's event loop; statements go to it by message (default false: in this thread).
   */
  thread?: boolean;
}

/**
 * Storage on embedded PGlite (`@electric-sql/pglite` is an optional peer dependency): in memory,
 * or kept in `dataDir` so a restart keeps everything; in this thread, or in one of its own
 * (`thread`).
 */
export async function openPGlite(dataDir?: string, options: OpenPGliteOptions = {}): Promise<PostgresStorage> {
  const { thread, ...rest } = options;
  if (thread) return new PostgresStorage(await pgliteThreadDriver(dataDir), rest);
  const { PGlite } = await import("@electric-sql/pglite");
  const db = dataDir ? new PGlite(dataDir) : new PGlite();
  await db.waitReady;
  return new PostgresStorage(pgliteDriver(db as unknown as PGliteLike), rest);
}

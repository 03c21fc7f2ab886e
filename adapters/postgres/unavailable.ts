import { StorageUnavailableError, type StorageUnavailableReason } from "../../src/ports/public";

/** SQLSTATEs (and classes) that mean the database cannot serve for now, not that the statement is wrong. */
function reasonOfSqlState(code: string): StorageUnavailableReason | null {
  if (code.startsWith("08")) return "connection"; // connection exceptions
  if (code === "57P01" || code === "57P02") return "connection"; // admin_shutdown, crash_shutdown
  if (code === "57P03") return "starting"; // cannot_connect_now: starting up, shutting down, in recovery
  if (code === "53300") return "too_many_connections";
  if (code === "53100") return "disk_full";
  if (code === "53200") return "out_of_memory";
  if (code === "25006") return "read_only"; // read_only_sql_transaction: a standby after a failover
  return null;
}

/** Node's errno codes of a socket or file that cannot serve. */
const ERRNO: Record<string, StorageUnavailableReason> = {
  ECONNREFUSED: "connection",
  ECONNRESET: "connection",
  ECONNABORTED: "connection",
  EPIPE: "connection",
  ETIMEDOUT: "connection",
  EHOSTUNREACH: "connection",
  ENETUNREACH: "connection",
  ENOTFOUND: "connection",
  EAI_AGAIN: "connection",
  ENOSPC: "disk_full",
  EDQUOT: "disk_full",
  EROFS: "read_only",
};

/** What `pg` says (without a code) when the session is gone or was never made. */
const LOST_SESSION =
  /Connection terminated|connection error|not queryable|Client was closed|timeout exceeded when trying to connect|Connection ended|socket hang up|write after end/i;

/**
 * The `StorageUnavailableError` that `e` (a driver's error) means, or null when it is a fault of
 * the statement or the code (a constraint, a syntax error, a bug). Looks through `cause`.
 * `ENOSPC` and friends are how PGlite's file system reports a full disk.
 */
export function classifyUnavailable(e: unknown, driver: string): StorageUnavailableError | null {
  if (e instanceof StorageUnavailableError) return e;
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    const errno = (cur as { errno?: unknown }).errno;
    let reason: StorageUnavailableReason | null = null;
    if (typeof code === "string") reason = /^[0-9A-Z]{5}$/.test(code) ? reasonOfSqlState(code) : (ERRNO[code] ?? null);
    if (reason === null && typeof errno === "string") reason = ERRNO[errno] ?? null;
    if (reason === null && LOST_SESSION.test(cur.message)) reason = "connection";
    if (reason !== null) {
      return new StorageUnavailableError(reason, `${driver}: ${cur.message}`, { cause: e, ...(typeof code === "string" ? { code } : {}) });
    }
  }
  return null;
}

/** `e` as the storage port reports it: a `StorageUnavailableError` when the database cannot serve for now, else `e` itself. */
export function asStorageError(e: unknown, driver: string): unknown {
  return classifyUnavailable(e, driver) ?? e;
}

/**
 * Why storage cannot serve now, as a storage adapter classifies its driver's errors:
 *
 * - `connection`: the database cannot be reached or ended the session (refused, reset, timed
 *   out, PostgreSQL's 08xxx, 57P01 `admin_shutdown`, 57P02 `crash_shutdown`): a restart, a
 *   failover, sessions terminated by an operator;
 * - `starting`: the server is starting or shutting down and accepts no sessions (57P03);
 * - `too_many_connections`: the server refuses more sessions (53300);
 * - `disk_full`: writes cannot be kept (53100, ENOSPC, a quota), while reads may still work;
 * - `out_of_memory`: the server ran out of memory (53200);
 * - `read_only`: the database accepts no writes (25006: a standby after a failover, or a
 *   database set read-only), while reads work.
 */
export type StorageUnavailableReason = "connection" | "starting" | "too_many_connections" | "disk_full" | "out_of_memory" | "read_only";

/** Reasons that leave reads working: only a write that succeeds shows they are over. */
const WRITE_REASONS: ReadonlySet<StorageUnavailableReason> = new Set(["disk_full", "read_only"]);

/**
 * Storage is unavailable for a while (see `StorageUnavailableReason`): nothing in the operation
 * that failed committed, unless the failure cut the answer to a COMMIT already sent (`connection`),
 * which is why the engine saves a request's response in the transaction of its effect. Storage
 * adapters throw it for their drivers' transient failures (the PostgreSQL adapter classifies
 * them); the engine treats it as transient: the HTTP binding answers 503 `storage_unavailable`
 * with `Retry-After`, workers back off and retry, and `/readyz` reports not ready until storage
 * answers again. Any other error an adapter throws is a fault (500 `internal_error`).
 */
export class StorageUnavailableError extends Error {
  override readonly cause: unknown;
  constructor(
    readonly reason: StorageUnavailableReason,
    message: string,
    options: { cause?: unknown; code?: string } = {},
  ) {
    super(message);
    this.name = "StorageUnavailableError";
    this.cause = options.cause;
    this.code = options.code;
  }
  /** The driver's code (a SQLSTATE such as `57P01`, or an errno such as `ECONNREFUSED`), when it gave one. */
  readonly code: string | undefined;

  /** Whether reads may still work while this lasts (a full disk, a read-only database). */
  get writesOnly(): boolean {
    return WRITE_REASONS.has(this.reason);
  }
}

/**
 * Whether a store method only reads (so a transaction that called nothing else wrote nothing):
 * the methods of `StorageTx`'s stores and of `AdapterStateTx` whose names begin with `get`,
 * `find`, `list`, `page` or `lock` (a lock is no effect once the transaction ends), and `stats`
 * and `nextRunAt`. Every other member may write; a store method added later is counted as a write
 * unless its name says otherwise, which errs on the safe side.
 */
export function isReadOnlyStoreMethod(method: string): boolean {
  return /^(get|find|list|page|lock)/.test(method) || method === "stats" || method === "nextRunAt";
}

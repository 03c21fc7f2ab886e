import type { Json } from "./json";

// Idempotency keys (Brandur Leach's design: the key row is locked while its request runs, and
// the response is saved in the same transaction as the request's effect).

export interface IdempotencyRecord {
  accountId: string;
  key: string;
  /** SHA-256 of method, path and canonical body. */
  fingerprint: string;
  /** Set while a request holds the key; null once the response is saved. */
  lockedAt: number | null;
  /**
   * The process (`OwnerStore` owner) whose request holds the key, when that process heartbeats:
   * the key is free as soon as that owner is dead. Absent or null: the lock holds until it runs
   * out. Stored as null when absent.
   */
  owner?: string | null;
  /** The saved response, once complete. */
  response: { status: number; body: Json } | null;
  created: number;
  expiresAt: number;
}

export interface IdempotencyStore {
  /**
   * Inserts the key if absent and returns `{ inserted: true }`; otherwise leaves it, locks the
   * existing row for the rest of the transaction and returns it. A concurrent insert of the same
   * key waits for the other transaction and then sees its row.
   */
  claim(record: IdempotencyRecord): Promise<{ inserted: true } | { inserted: false; existing: IdempotencyRecord }>;
  /** Overwrites the row of (accountId, key). */
  put(record: IdempotencyRecord): Promise<void>;
  /**
   * Overwrites the row of (accountId, key) with `record` as the transaction commits, if the row
   * then stands as `expected` (the same fingerprint and created as `record`, this `lockedAt`, a
   * saved response or not; checked at the latest before the transaction's next statement). When
   * it does not: with `required`, the transaction fails with `IdempotencyKeyLostError` and rolls
   * back; without, the row stays as it is. Saving a request's response with its effect costs no
   * round trip of its own this way (the PostgreSQL adapter sends it with the last writes).
   */
  replaceAtCommit(record: IdempotencyRecord, expected: { lockedAt: number | null; responded: boolean }, options: { required: boolean }): Promise<void>;
  /** Removes the row of (accountId, key), if any. */
  delete(accountId: string, key: string): Promise<void>;
  /** Deletes rows with `expiresAt <= now`; returns how many. */
  pruneExpired(now: number, limit: number): Promise<number>;
}

/**
 * Thrown by `IdempotencyStore.replaceAtCommit` (at the latest when the transaction commits) when
 * a required key no longer stands as expected: another request took it over, or it was pruned.
 * The transaction has rolled back; the core answers `idempotency_key_in_use`.
 */
export class IdempotencyKeyLostError extends Error {
  constructor(
    readonly accountId: string,
    readonly key: string,
  ) {
    super(`the Idempotency-Key ${key} is no longer held by this request`);
    this.name = "IdempotencyKeyLostError";
  }
}

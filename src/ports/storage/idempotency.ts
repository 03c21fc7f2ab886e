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
   * Overwrites the row of (accountId, key) in one statement if it stands as `expected` (the same
   * fingerprint and created as `record`, this `lockedAt`, and a saved response or not); false,
   * changing nothing, when there is no such row. The common case of saving a response, where
   * `claim` then `put` would take three statements.
   */
  replaceIf(record: IdempotencyRecord, expected: { lockedAt: number | null; responded: boolean }): Promise<boolean>;
  /** Removes the row of (accountId, key), if any. */
  delete(accountId: string, key: string): Promise<void>;
  /** Deletes rows with `expiresAt <= now`; returns how many. */
  pruneExpired(now: number, limit: number): Promise<number>;
}

import type { Json } from "./json";

/**
 * Resources (payouts, recipients, quotes, … as JSON documents with indexed columns), and the
 * keyset page every list uses.
 */

export interface ResourceRecord {
  accountId: string;
  /** Resource kind, e.g. `payout`; lists are per kind. */
  kind: string;
  id: string;
  created: number;
  /** Indexed for list filters; null when the kind has no status. */
  status: string | null;
  /** Indexed for prefix search; null when absent. */
  reference: string | null;
  /** The whole resource as the core keeps it. */
  data: Json;
  /** Starts at 1 and grows by one on every update. */
  version: number;
  updated: number;
}

export interface ResourceStore {
  /** Inserts new resources (ids are new), in as few statements as the adapter can. */
  insert(records: ResourceRecord[]): Promise<void>;
  /** Reads one resource of the account; `lock` holds a row lock for the rest of the transaction. */
  get(accountId: string, id: string, options?: { lock?: boolean }): Promise<ResourceRecord | null>;
  /**
   * Reads many resources of the account in one go; missing ids are left out. `lock` holds row
   * locks on them for the rest of the transaction, taken in id order (so two transactions
   * locking overlapping sets never deadlock).
   */
  getMany(accountId: string, ids: readonly string[], options?: { lock?: boolean }): Promise<ResourceRecord[]>;
  /**
   * Removes a resource of the account (a deleted recipient or webhook endpoint); false when there
   * was none. Resources that others point at (payouts, ledger entries) are never deleted this way.
   */
  delete(accountId: string, id: string): Promise<boolean>;
  /**
   * Replaces a resource whose stored version is `record.version - 1`; returns false and changes
   * nothing otherwise (someone else updated it first).
   */
  update(record: ResourceRecord): Promise<boolean>;
  /**
   * Replaces resources, each stored at `record.version - 1`. The adapter may hold the writes
   * until the transaction's next statement or its commit (one statement for many); a record
   * whose version does not follow then fails the transaction with `StaleResourceError`, and it
   * rolls back. With the rows locked that is a programmer error; a caller that did not lock them
   * (an optimistic write of a document it wrote itself a moment ago) catches it and tries again
   * the locked way.
   */
  updateMany(records: readonly ResourceRecord[]): Promise<void>;
  /** One keyset page, newest first (see `KeysetQuery`). */
  list(query: KeysetQuery & { kind: string }): Promise<ResourceRecord[]>;
}

/**
 * A keyset page over (created, id), newest first (`order` `desc`, the default) or oldest first
 * (`asc`: a list read backwards, for `ending_before`): rows strictly after `after` in that
 * order, at most `limit` of them. The cost of a page does not depend on how deep it is.
 */
export interface KeysetQuery {
  accountId: string;
  /** Exact match on the `status` column (resources) or `type` column (events). */
  status?: string;
  createdGte?: number;
  createdLt?: number;
  /** Matches a prefix of `reference` or exactly the id. */
  search?: string;
  /** Resources only: the rows whose document's `metadata` has `key` set to exactly `value`. */
  metadata?: { key: string; value: string };
  after?: { created: number; id: string };
  /** The order of the page (default `desc`, newest first). */
  order?: "asc" | "desc";
  limit: number;
}

/**
 * A resource was not at the version `ResourceStore.updateMany` expected: someone else updated it
 * first. The transaction has rolled back.
 */
export class StaleResourceError extends Error {
  constructor(
    readonly accountId: string,
    readonly ids: readonly string[],
  ) {
    super(`resource ${ids.join(", ")} changed since it was read`);
    this.name = "StaleResourceError";
  }
}

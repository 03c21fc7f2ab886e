/**
 * Customer books hold what an account owns and can never go negative; `counter:*` books are the
 * engine's counter-accounts (money entering or leaving the system) and carry the opposite sign.
 */
export type Book = "available" | "reserved" | "pending" | `counter:${string}`;

export interface BalanceKey {
  accountId: string;
  asset: string;
  chain: string;
  book: Book;
}

export interface BalanceRecord extends BalanceKey {
  amount: bigint;
}

export interface LedgerEntryRecord {
  id: string;
  accountId: string;
  /**
   * Entries of one posting share it; they net to zero per asset (across accounts, when a posting
   * reaches the house account). Derived from the resource and the transition that caused it, so
   * the same transition can never post twice.
   */
  postingId: string;
  /** The entry's place in its posting (0, 1, …): (account, posting, line) is unique. */
  line: number;
  asset: string;
  chain: string;
  book: Book;
  /** Signed base units. */
  amount: bigint;
  /** Id of the resource that caused the posting, or null (test funding). */
  resource: string | null;
  created: number;
}

export interface ReservationRecord {
  id: string;
  accountId: string;
  asset: string;
  chain: string;
  /** What was reserved at first. */
  amount: bigint;
  /** What is still reserved; 0 once resolved. */
  remaining: bigint;
  status: "active" | "resolved";
  resource: string | null;
  created: number;
  resolvedAt: number | null;
}

export interface LedgerStore {
  /**
   * Locks, for the rest of the transaction, every balance row of each (account, asset) pair that
   * `keys` names, creating the named keys at zero where missing. Locks are taken in (account,
   * asset, chain, book) order so two transactions never deadlock on them. Returns all those rows
   * (a superset of `keys`): the core needs the whole asset to publish an exact balance, and
   * holding the whole asset makes the order of `balance.updated` events the order of commits.
   */
  lockBalances(keys: BalanceKey[]): Promise<BalanceRecord[]>;
  /**
   * Appends entries and adds each one's amount to its balance row. The core has locked every
   * row involved and checked that no customer book goes below zero; the adapter refuses (throws)
   * if one would anyway, and refuses (throws) an entry whose (account, posting, line) exists
   * already: a posting happens once.
   */
  appendEntries(entries: LedgerEntryRecord[]): Promise<void>;
  /** Balance rows of an account (all books), for reads; no locks. */
  listBalances(accountId: string): Promise<BalanceRecord[]>;
  /**
   * What every account of one mode holds on `chain`, summed per asset and book (customer books
   * and counter-accounts alike), as committed; no locks. Only (asset, book) pairs with a row are
   * answered. Reconciliation compares it with the chain (docs/reconciliation.md).
   */
  listBalanceTotals(filter: { livemode: boolean; chain: string }): Promise<{ asset: string; book: Book; amount: bigint }[]>;
  /**
   * The active reservations on `chain` of every account of one mode (what the books still hold
   * for legs and conversions under way), in (account, id) order; no locks. PostgreSQL reads
   * them from a partial index of active reservations, so resolved ones cost nothing.
   */
  listActiveReservations(filter: { livemode: boolean; chain: string }): Promise<ReservationRecord[]>;
  /** Entries of an account by resource id or by entry ids, oldest first. */
  listEntries(accountId: string, filter: { resource?: string; ids?: string[] }): Promise<LedgerEntryRecord[]>;
  /**
   * One keyset page of the account's own entries (customer books only: `available`, `reserved`,
   * `pending`), in `(created, id)` order ascending or descending, strictly after `after` in that
   * order. A page costs the same however deep it is (PostgreSQL: an index on
   * `(account_id, created, id)` of customer-book rows). Read by the ledger entry list and by
   * report builds, which walk a whole window page by page without holding a transaction open.
   */
  pageEntries(query: LedgerPageQuery): Promise<LedgerEntryRecord[]>;
  /**
   * The same page, each entry handed to `entry` as the adapter reads it, in the page's order, and
   * none kept by the adapter; resolves to the number of entries. What a report build reads: a
   * page held whole until it is formatted outlives the young generation's collections, and the
   * old generation then holds it as garbage until a full collection (docs/performance.md,
   * "Reports in constant memory"). What `entry` throws fails the read.
   */
  pageEntriesEach(query: LedgerPageQuery, entry: (entry: LedgerEntryRecord) => void): Promise<number>;
  /**
   * Inserts new reservations (the ledger's `reserve` and `reserveMany`, in the transaction that
   * posts their reservation entries: a whole batch's in one call). The adapter may hold the
   * write until the transaction's next statement or its commit; an id that exists already
   * fails the transaction.
   */
  insertReservations(reservations: readonly ReservationRecord[]): Promise<void>;
  /** Reads and locks a reservation for the rest of the transaction. */
  lockReservation(accountId: string, id: string): Promise<ReservationRecord | null>;
  /** Reads and locks many reservations of the account in one go, in id order; missing ids are left out. */
  lockReservations(accountId: string, ids: readonly string[]): Promise<ReservationRecord[]>;
  /**
   * Writes back a reservation the transaction has locked. The adapter may hold the write until
   * the transaction's next statement or its commit; a reservation that is not there then fails
   * the transaction.
   */
  updateReservation(reservation: ReservationRecord): Promise<void>;
}

/** A keyset page of the account's own ledger entries (see `LedgerStore.pageEntries`). */
export interface LedgerPageQuery {
  accountId: string;
  order: "asc" | "desc";
  createdGte?: number;
  createdLt?: number;
  /** Only entries whose `resource` starts with this (e.g. `po_`, payouts); entries without one never match. */
  resourcePrefix?: string;
  /** Exclusive: the page starts after this row in `order`. */
  after?: { created: number; id: string };
  limit: number;
}

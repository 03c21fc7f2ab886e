/**
 * The storage port: everything the engine keeps. Two adapters implement it (memory and
 * PostgreSQL) and the published conformance suite (`payrail/conformance`) holds them to it.
 *
 * The engine calls `transaction` for every state change: it takes its locks first (resources,
 * then balance rows in key order), then writes. Everything written inside one call commits or
 * rolls back together: a resource's new state, its ledger entries, its outbox events and its
 * due work. Records are plain data: amounts are `bigint` base units, times are epoch
 * milliseconds, `json` fields hold only JSON values. Adapters never interpret `json` fields
 * and never compute money; the core has validated everything it hands over.
 */
export interface StorageAdapter {
  /** Short name used in error messages, e.g. `memory`, `postgres`. */
  readonly name: string;
  readonly capabilities: StorageCapabilities;
  /**
   * Called once by the engine before anything else; creates or migrates the schema. Must be
   * safe when several engine processes start at once against one database.
   */
  init(): Promise<void>;
  /**
   * Runs `fn` in one transaction: commits when it resolves, rolls back when it throws (and
   * rethrows the same error). An adapter may retry `fn` on a serialization failure or deadlock;
   * the engine's `fn` only touches `tx` and can run again.
   */
  transaction<T>(fn: (tx: StorageTx) => Promise<T>): Promise<T>;
  /**
   * Claims up to `limit` due work items (run_at <= now, not leased or lease expired, not dead)
   * in one short transaction, oldest `runAt` first, and leases them to `owner` until
   * `now + leaseMs`. Two concurrent callers never receive the same item while its lease holds
   * (PostgreSQL: `FOR UPDATE SKIP LOCKED`). Increments `attempts`. Honours the request's kind
   * filters and, with `groupLimit`, never lets more than that many items of one group be leased
   * at once, even across concurrent claimers (see `ClaimRequest`).
   */
  claimDueWork(request: ClaimRequest): Promise<DueWorkRecord[]>;
  /** Releases connections. The engine calls it once; nothing is called after it. */
  close(): Promise<void>;
}

export interface StorageCapabilities {
  /** Transactions from several callers run at the same time (memory and PGlite: one at a time). */
  readonly concurrentTransactions: boolean;
  /** Rows locked by one transaction are skipped, not waited for, by a concurrent claim. */
  readonly supportsSkipLocked: boolean;
}

/** What one transaction can do. Groups mirror the tables; each is documented below. */
export interface StorageTx {
  readonly accounts: AccountStore;
  readonly rateLimits: RateLimitStore;
  readonly ledger: LedgerStore;
  readonly resources: ResourceStore;
  readonly events: EventStore;
  readonly idempotency: IdempotencyStore;
  readonly work: WorkStore;
  readonly meta: MetaStore;
  readonly deliveries: DeliveryLogStore;
  readonly depositAddresses: DepositAddressStore;
}

// ---------------------------------------------------------------------------------------------
// Accounts and API keys

export interface AccountRecord {
  id: string;
  name: string;
  livemode: boolean;
  /** Account settings such as policy limits; owned by the core. */
  settings: Json;
  created: number;
}

export interface ApiKeyRecord {
  /** Lowercase hex SHA-256 of the whole key; the key itself is never stored. */
  hash: string;
  accountId: string;
  livemode: boolean;
  /** Empty means full access. */
  scopes: string[];
  /** A redacted form for display, e.g. `sk_test_…a1b2`. */
  redacted: string;
  created: number;
}

export interface AccountStore {
  /** Inserts an account; the id is new. */
  insertAccount(account: AccountRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | null>;
  /** Replaces the settings of an existing account. */
  updateAccountSettings(id: string, settings: Json): Promise<void>;
  /** Inserts a key; returns false (and changes nothing) when the hash exists already. */
  insertApiKey(key: ApiKeyRecord): Promise<boolean>;
  /** Called on every authenticated request. */
  findApiKey(hash: string): Promise<ApiKeyRecord | null>;
}

// ---------------------------------------------------------------------------------------------
// Ledger

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
  /** Entries of one posting share it; they net to zero per asset. */
  postingId: string;
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
   * if one would anyway.
   */
  appendEntries(entries: LedgerEntryRecord[]): Promise<void>;
  /** Balance rows of an account (all books), for reads; no locks. */
  listBalances(accountId: string): Promise<BalanceRecord[]>;
  /** Entries of an account by resource id or by entry ids, oldest first. */
  listEntries(accountId: string, filter: { resource?: string; ids?: string[] }): Promise<LedgerEntryRecord[]>;
  insertReservation(reservation: ReservationRecord): Promise<void>;
  /** Reads and locks a reservation for the rest of the transaction. */
  lockReservation(accountId: string, id: string): Promise<ReservationRecord | null>;
  /** Writes back a reservation the transaction has locked. */
  updateReservation(reservation: ReservationRecord): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Resources (payouts, recipients, quotes, … as JSON documents with indexed columns)

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
  /** Reads many resources of the account in one go (no locks); missing ids are left out. */
  getMany(accountId: string, ids: readonly string[]): Promise<ResourceRecord[]>;
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
  /** One keyset page, newest first (see `KeysetQuery`). */
  list(query: KeysetQuery & { kind: string }): Promise<ResourceRecord[]>;
}

/**
 * A keyset page over (created, id), newest first: rows strictly after `after` in that order,
 * at most `limit` of them. The cost of a page does not depend on how deep it is.
 */
export interface KeysetQuery {
  accountId: string;
  /** Exact match on the `status` column (resources) or `type` column (events). */
  status?: string;
  createdGte?: number;
  createdLt?: number;
  /** Matches a prefix of `reference` or exactly the id. */
  search?: string;
  after?: { created: number; id: string };
  limit: number;
}

// ---------------------------------------------------------------------------------------------
// Events (the outbox)

export interface EventRecord {
  accountId: string;
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  /** The envelope's `data` member: `{ object: <resource snapshot> }`. */
  data: Json;
  /** The envelope's `request` member. */
  request: { id: string | null; idempotency_key: string | null };
}

export interface EventStore {
  /** Appends outbox events; written in the same transaction as the change they describe. */
  insert(events: EventRecord[]): Promise<void>;
  get(accountId: string, id: string): Promise<EventRecord | null>;
  /** The events of the account among `ids` (in no particular order; missing ids are left out). */
  getMany(accountId: string, ids: readonly string[]): Promise<EventRecord[]>;
  /** One keyset page; `status` filters on the event type. */
  list(query: KeysetQuery): Promise<EventRecord[]>;
  /** Deletes events created before `before` (retention); returns how many. */
  pruneBefore(before: number, limit: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Idempotency keys (Brandur Leach's design: the key row is locked while its request runs, and
// the response is saved in the same transaction as the request's effect)

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
  /** Removes the row of (accountId, key), if any. */
  delete(accountId: string, key: string): Promise<void>;
  /** Deletes rows with `expiresAt <= now`; returns how many. */
  pruneExpired(now: number, limit: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Due work (every delayed step is a row; workers claim it)

export interface DueWorkRecord {
  id: string;
  /** Handler name, e.g. `maintenance.prune`. */
  kind: string;
  accountId: string | null;
  payload: Json;
  runAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  attempts: number;
  lastError: string | null;
  /** Dead items have failed for good and are kept for inspection; they are never claimed. */
  status: "ready" | "dead";
  /** At most one item per dedupe key exists at a time. */
  dedupeKey: string | null;
  /**
   * Items of one group (e.g. the deliveries of one webhook endpoint) share a concurrency limit
   * when claimed with `groupLimit`. Absent or null: no group. Stored as null when absent.
   */
  group?: string | null;
  created: number;
}

export interface ClaimRequest {
  now: number;
  limit: number;
  leaseMs: number;
  owner: string;
  /** Claim only items of these kinds (a worker lane that runs only them). */
  onlyKinds?: readonly string[];
  /** Never claim items of these kinds (they belong to another lane). */
  exceptKinds?: readonly string[];
  /**
   * At most this many items of one group may hold an unexpired lease at once, counting leases
   * held by any claimer; items beyond it wait (a slow group never takes every slot). Must hold
   * under concurrent claimers. Items without a group are not limited. Absent: no limit.
   */
  groupLimit?: number;
}

export interface WorkStore {
  /** Adds items; an item whose dedupe key exists already is skipped. */
  enqueue(items: DueWorkRecord[]): Promise<void>;
  /** Deletes an item if `owner` still holds its lease; false if the lease was lost. */
  complete(id: string, owner: string): Promise<boolean>;
  /**
   * Ends the lease of an item `owner` holds and sets when it runs next (or marks it dead) with
   * the error text; false if the lease was lost. A dead item gives up its dedupe key (it is set
   * to null), so the same work can be scheduled again.
   */
  release(
    id: string,
    owner: string,
    next: { runAt: number; lastError: string | null; dead?: boolean; resetAttempts?: boolean },
  ): Promise<boolean>;
  /** `complete` for many items `owner` holds, in one statement; returns the ids it deleted. */
  completeMany(ids: readonly string[], owner: string): Promise<string[]>;
  /**
   * `release` to a retry for many items `owner` holds, each with its own next run, in one
   * statement; returns the ids it released.
   */
  releaseMany(owner: string, items: readonly { id: string; runAt: number; lastError: string | null }[]): Promise<string[]>;
  get(id: string): Promise<DueWorkRecord | null>;
  /**
   * The earliest moment a ready item can be claimed (its `runAt`, or its lease's end if that is
   * later), or null when there is none; lets a worker or a test clock move to it.
   */
  nextRunAt(): Promise<number | null>;
}

// ---------------------------------------------------------------------------------------------
// Rate limits (fixed windows, shared by every engine process on the store)

export interface RateLimitStore {
  /** Counts one more hit of `key` in the window starting at `windowStart`; returns the count. */
  hit(key: string, windowStart: number): Promise<number>;
  /** Deletes windows that started before `before`; returns how many. */
  pruneBefore(before: number, limit: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// The webhook delivery log (one row per attempt, kept 7 days)

export interface DeliveryLogRecord {
  accountId: string;
  /** `dlv_…`, also sent as the attempt's `Service-Delivery` header. */
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** 1-based, as sent in `Service-Attempt`. */
  attempt: number;
  /** What caused the delivery: `scheduled` (an event), `replay`, `manual`. */
  trigger: string;
  /** `succeeded` (2xx) or `failed`; indexed for the list filter. */
  status: string;
  /** The receiver's HTTP status, or null when none came (timeout, refused, reset). */
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  created: number;
  /** When the next attempt is due; null when there is none (acknowledged, gone, gave up). */
  nextAttemptAt: number | null;
}

export interface DeliveryLogStore {
  /** Appends attempts; written in the transaction that settles the attempt's work item. */
  insert(records: DeliveryLogRecord[]): Promise<void>;
  /** One keyset page of one endpoint's attempts; `status` filters on the status column. */
  list(query: KeysetQuery & { endpointId: string }): Promise<DeliveryLogRecord[]>;
  /** Deletes attempts created before `before` (retention); returns how many. */
  pruneBefore(before: number, limit: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Engine metadata

export interface MetaStore {
  /** `lock` holds a row lock on the key until the transaction ends (when the key exists). */
  get(key: string, options?: { lock?: boolean }): Promise<string | null>;
  /** Stores `value` unless the key exists; returns the stored value either way. */
  setIfAbsent(key: string, value: string): Promise<string>;
  set(key: string, value: string): Promise<void>;
  /**
   * Stores the larger of the stored integer and `value` (as decimal text), atomically even under
   * concurrent callers; returns what is stored. A missing key counts as smaller than anything.
   */
  raise(key: string, value: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Deposit addresses (which payment intent an address on a chain belongs to)

export interface DepositAddressRecord {
  chain: string;
  /** As the chain adapter gave it, and as inbound transfers report it. */
  address: string;
  accountId: string;
  /** The payment intent the address was made for. */
  resource: string;
  created: number;
}

/**
 * The one lookup that crosses accounts: a chain reports deposits by address, and the engine must
 * find whose they are. Addresses are unique per chain.
 */
export interface DepositAddressStore {
  /** Records new addresses; an address already recorded on its chain is an error (throws). */
  insert(records: DepositAddressRecord[]): Promise<void>;
  /**
   * Every recorded address among `addresses`, on any chain (an EVM address made on one chain
   * receives on the others too, and the engine must see a deposit that came the wrong way).
   */
  find(addresses: readonly string[]): Promise<DepositAddressRecord[]>;
}

/**
 * A value that survives `JSON.stringify` / `JSON.parse` unchanged (no bigint, undefined or
 * functions). Typed as `unknown` so core records need no index signatures; the core owns the
 * shapes and the adapters only store them.
 */
export type Json = unknown;

import type { AccountStore } from "./accounts";
import type { AdapterStateStore } from "../adapter-state";
import type { DeliveryLogStore } from "./deliveries";
import type { DepositAddressStore } from "./deposit-addresses";
import type { ClaimRequest, DueWorkRecord, WorkStore } from "./due-work";
import type { EventStore } from "./events";
import type { IdempotencyStore } from "./idempotency";
import type { LedgerStore } from "./ledger";
import type { MetaStore } from "./meta";
import type { OwnerStore } from "./owners";
import type { RateLimitStore } from "./rate-limits";
import type { ResourceStore } from "./resources";

export type * from "./accounts";
export type * from "./deliveries";
export type * from "./deposit-addresses";
export type * from "./due-work";
export { roomOf } from "./due-work";
export type * from "./events";
export type * from "./idempotency";
export { IdempotencyKeyLostError } from "./idempotency";
export type * from "./json";
export type * from "./ledger";
export type * from "./meta";
export type * from "./owners";
export { ownerDead } from "./owners";
export type * from "./rate-limits";
export { slidingWindowTake } from "./rate-limits";
export type * from "./resources";
export { StaleResourceError } from "./resources";
export { StorageUnavailableError, isReadOnlyStoreMethod, type StorageUnavailableReason } from "./unavailable";

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
  transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: CommitOptions): Promise<T>;
  /**
   * Runs `fn` without a transaction: every store call is atomic on its own and commits as it
   * completes (writes a call buffers commit before the next call or at the end), nothing is
   * isolated from concurrent transactions across calls, and a lock ends with the call that took
   * it. If `fn` throws, what earlier calls wrote may or may not stay. For single statements whose
   * outcome decides what comes next (the insert of a fresh idempotency key): it saves the round
   * trips of BEGIN and COMMIT. An adapter without round trips may run it as a transaction.
   */
  autocommit<T>(fn: (tx: StorageTx) => Promise<T>, options?: CommitOptions): Promise<T>;
  /**
   * Claims up to `limit` due work items (run_at <= now, not leased or lease expired, not dead)
   * in one short transaction, oldest `runAt` first, and leases them to `owner` until
   * `now + leaseMs`. Two concurrent callers never receive the same item while its lease holds
   * (PostgreSQL: `FOR UPDATE SKIP LOCKED`). Increments `attempts`. Honours the request's kind
   * filters and, with `groupLimit`, never lets more than that many items of one group be leased
   * at once, even across concurrent claimers (see `ClaimRequest`).
   */
  claimDueWork(request: ClaimRequest): Promise<DueWorkRecord[]>;
  /**
   * The state `namespace` keeps (`AdapterStateStore`): where chain and venue adapters keep
   * records of their own, in this storage, apart from the engine's stores. Called by an adapter
   * (or by the host wiring one) after `init`; cheap, so it may be called again for the same
   * namespace, and every handle of a namespace sees the same records. Throws a TypeError for a
   * name `assertStateNamespace` refuses.
   */
  adapterState(namespace: string): AdapterStateStore;
  /** Releases connections. The engine calls it once; nothing is called after it. */
  close(): Promise<void>;
}

/** How a transaction (or an autocommit session) commits. */
export interface CommitOptions {
  /**
   * Default true: a commit is on disk before it returns. False lets an adapter acknowledge the
   * commit before (PostgreSQL: `synchronous_commit` off, and no wait for the flush): a crash of
   * the database, not of the engine, within a moment after may lose it, and never out of order (a
   * later durable commit makes it durable too). The engine asks it only where such a loss is
   * repaired by work that was durable already: an idempotency claim (the effect's commit covers
   * it), the record of a send (the broadcast it follows is repeated, idempotently, after its claim
   * runs out).
   */
  durable?: boolean;
  /**
   * Default false. True lets an adapter with round trips take the transaction's balance locks
   * late: `lockBalances` may read the rows without locking them, and the transaction then commits
   * only if every row it read still holds the amount read (its last statement locks and checks
   * them); if one does not, the adapter runs the transaction again from the start, with locks.
   * What the transaction reads and writes is what it would under locks; only the lock is held for
   * less time (on a server: one statement and its commit instead of the whole transaction). For
   * use cases that lock balances, decide, write and commit, relying on the balance locks for the
   * balances only (a payout create). Adapters without round trips may ignore it.
   */
  optimistic?: boolean;
}

/**
 * What an adapter can do beyond the port's guarantees. The conformance suite reads each flag and
 * tests what a declared one promises; a test that needs an ability the adapter lacks is skipped,
 * saying which.
 */
export interface StorageCapabilities {
  /**
   * Transactions from several callers run at the same time (memory and PGlite: one at a time).
   * Declared true, the suite checks that a second transaction commits while a first is open,
   * that locks (balance rows, adapter-state keys) make the others wait, and that racing inserts
   * of one key wait for each other.
   */
  readonly concurrentTransactions: boolean;
}

/**
 * What one transaction can do. Each member is one store (a table or two), in a file of its own
 * here: all of it is what the engine keeps. Adapters keep their own state apart, through
 * `adapterState`.
 */
export interface StorageTx {
  readonly accounts: AccountStore;
  readonly rateLimits: RateLimitStore;
  readonly ledger: LedgerStore;
  readonly resources: ResourceStore;
  readonly events: EventStore;
  readonly idempotency: IdempotencyStore;
  readonly work: WorkStore;
  readonly owners: OwnerStore;
  readonly meta: MetaStore;
  readonly deliveries: DeliveryLogStore;
  readonly depositAddresses: DepositAddressStore;
}

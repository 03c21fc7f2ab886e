import type { Json } from "./json";

/**
 * Due work: every delayed step is a row; workers claim it.
 */

export interface DueWorkRecord {
  id: string;
  /** Handler name, e.g. `maintenance.prune`. */
  kind: string;
  /** The account the work is for; null for the engine's own work. */
  accountId: string | null;
  /** The account's mode (test or live); null for the engine's own work. */
  livemode: boolean | null;
  payload: Json;
  runAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  attempts: number;
  lastError: string | null;
  /** Dead items have failed for good and are kept for inspection; they are never claimed. */
  status: "ready" | "dead";
  /**
   * At most one item per dedupe key exists at a time within an account (the engine's own work,
   * `accountId` null, counting as one account): keys are unique per account, as every key of an
   * account-owned table is (docs/scaling.md).
   */
  dedupeKey: string | null;
  /**
   * Items of one group (e.g. the deliveries of one webhook endpoint) share a concurrency limit
   * when claimed with `groupLimit`. Absent or null: no group. Stored as null when absent.
   */
  group?: string | null;
  /**
   * The API request that started the chain of work this item belongs to (its `req_…` id and
   * Idempotency-Key), carried to the events the work emits and to the work it schedules in turn.
   * Absent or null: none (the engine's own work). Stored as null when absent.
   */
  request?: WorkRequest | null;
  created: number;
}

/**
 * The originating request of due work, as an event's `request` member shows it (`id`,
 * `idempotency_key`), and the trace context it was scheduled in when the engine traces
 * (`Tracer`): its work's spans join that trace. Kept as it is given (JSON).
 */
export interface WorkRequest {
  id: string | null;
  idempotency_key: string | null;
  /** W3C `traceparent` of the span that scheduled the work; absent when nothing traced it. */
  traceparent?: string;
  tracestate?: string;
}

export interface ClaimRequest {
  now: number;
  limit: number;
  leaseMs: number;
  /**
   * Who leases the items. An owner that is dead (`OwnerStore`: declared so, or its life ran out
   * at `now`) claims nothing: its claim returns no items, even when it races the `reap` that
   * declares it dead (the claim either commits first, and the reap ends its leases, or sees it dead).
   */
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
  /**
   * Shares of the claim among accounts (a lane's fair shares, see `WorkLane.fairShares`): at most
   * `room[account]` items of an account `room` names (0: none of its items), at most `others`
   * items of any other account; items without an account are not limited. Applied with the kind
   * filters and `groupLimit`: a claim that returns fewer than `limit` items has taken every due
   * item they all allow (it looks past the items of accounts out of room). Absent: no limit.
   */
  accountRoom?: AccountRoom;
  /**
   * Never claim items of these groups now (a lane holding them back: an endpoint out of its rate
   * limit's slots until its window moves on). Items without a group are not affected.
   */
  exceptGroups?: readonly string[];
}

/** See `ClaimRequest.accountRoom`. */
export interface AccountRoom {
  room: Readonly<Record<string, number>>;
  others: number;
}

/** How many more items of `accountId` a claim with `shares` may take (unlimited without an account). */
export function roomOf(shares: AccountRoom, accountId: string | null): number {
  if (accountId === null) return Number.POSITIVE_INFINITY;
  return Object.hasOwn(shares.room, accountId) ? shares.room[accountId]! : shares.others;
}

/** See `WorkStore.takeNext`. */
export interface TakeNextRequest {
  kind: string;
  groups: readonly string[];
  owner: string;
  now: number;
  leaseUntil: number;
}

/** How the due work of one kind stands at a moment (see `WorkStore.stats`). */
export interface DueWorkKindStats {
  kind: string;
  /** Ready items whose time has come and that no unexpired lease holds: waiting for a worker. */
  due: number;
  /** Items held by an unexpired lease: running somewhere now. */
  leased: number;
  /** Ready items whose `runAt` is still ahead (retries, expiries, polls to come). */
  scheduled: number;
  /** Items that failed for good (`status: "dead"`). */
  dead: number;
  /** The smallest `runAt` among the due items, or null when none is due: how far behind the workers are. */
  oldestDueAt: number | null;
}

export interface WorkStore {
  /** Adds items; an item whose dedupe key exists already in its account is skipped. */
  enqueue(items: DueWorkRecord[]): Promise<void>;
  /** Deletes an item if `owner` still holds its lease; false if the lease was lost. */
  complete(id: string, owner: string): Promise<boolean>;
  /**
   * Ends the lease of an item `owner` holds and sets when it runs next (or marks it dead) with
   * the error text; false if the lease was lost. A dead item gives up its dedupe key (it is set
   * to null), so the same work can be scheduled again.
   */
  release(id: string, owner: string, next: { runAt: number; lastError: string | null; dead?: boolean; resetAttempts?: boolean }): Promise<boolean>;
  /** `complete` for many items `owner` holds, in one statement; returns the ids it deleted. */
  completeMany(ids: readonly string[], owner: string): Promise<string[]>;
  /**
   * `release` to a retry for many items `owner` holds, each with its own next run, in one
   * statement; returns the ids it released.
   */
  releaseMany(owner: string, items: readonly { id: string; runAt: number; lastError: string | null }[]): Promise<string[]>;
  /**
   * Hands slots of groups on without a claim: leases to `owner`, until `leaseUntil`, for each
   * entry of `groups` (a group named twice gets two) the oldest ready item of `kind` in that
   * group that is due at `now` and that no unexpired lease holds, skipping rows another
   * transaction holds, and counts a claim on each (`attempts`, as `claimDueWork` does). Called
   * by a handler in the transaction that completes, for each entry, one item of that group it
   * holds: the group's live leases then never outnumber what a claim's `groupLimit` allowed.
   * Returns what it leased (fewer when a group has nothing due), oldest `runAt` first; an owner
   * dead at `now` (see `ClaimRequest.owner`) takes nothing.
   */
  takeNext(request: TakeNextRequest): Promise<DueWorkRecord[]>;
  get(id: string): Promise<DueWorkRecord | null>;
  /**
   * Ends every lease still running at `now`, whoever holds it, so the items are claimable at
   * once; returns how many. Only for a process that is the store's one user (an embedded
   * database it opened), at start: its leases can then only be those of a process that died.
   */
  releaseAllLeases(now: number): Promise<number>;
  /**
   * The earliest moment a ready item can be claimed (its `runAt`, or its lease's end if that is
   * later), or null when there is none; lets a worker or a test clock move to it.
   */
  nextRunAt(): Promise<number | null>;
  /**
   * Every kind that has items, with how its items stand at `now` (each item counted once: dead,
   * else leased when its lease ends after `now`, else due when `runAt <= now`, else scheduled).
   * Read by metrics every scrape, so one statement; kinds in no particular order.
   */
  stats(now: number): Promise<DueWorkKindStats[]>;
}

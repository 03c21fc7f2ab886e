/**
 * Owners: the processes that hold due-work leases, payout legs claimed for sending and
 * Idempotency-Keys in flight. An owner is alive while it renews its heartbeat; once its life runs
 * out it is dead for good (a late heartbeat never revives it: the process takes a new name), and
 * what it held is taken over at once instead of when each claim would have run out. An owner
 * that never heartbeats (a single-process engine) has no record, and its claims run out as they
 * always did.
 */

export interface OwnerRecord {
  owner: string;
  /** Alive until this moment unless it heartbeats again before. */
  aliveUntil: number;
  /** When it was declared dead (its life ran out, or it retired); null while alive. */
  deadAt: number | null;
}

export interface OwnerStore {
  /**
   * Registers `owner` (no record yet) or extends its life to `until`, and returns true; returns
   * false and changes nothing when the owner is dead: declared so, or its life ran out at `now`
   * (fencing: a process paused past its life that wakes up learns it was declared dead).
   */
  heartbeat(owner: string, now: number, until: number): Promise<boolean>;
  /**
   * Declares dead every owner whose life ran out at `now`, and ends the due-work leases those
   * owners hold (the items are claimable at once; their late `complete` or `release` then finds
   * the lease lost). Returns the owners it declared dead.
   */
  reap(now: number): Promise<string[]>;
  /** Declares `owner` dead at `now` as `reap` would (a process stopping cleanly); nothing if it has no record. */
  retire(owner: string, now: number): Promise<void>;
  /** The records of these owners that exist (an owner that never heartbeat has none). */
  getMany(owners: readonly string[]): Promise<Map<string, OwnerRecord>>;
  /** Deletes at most `limit` records of owners declared dead before `before`; returns how many. */
  prune(before: number, limit: number): Promise<number>;
}

/** Whether the owner of a claim is dead at `now` (its record says so, or its life ran out); an owner without a record is not. */
export function ownerDead(record: OwnerRecord | undefined, now: number): boolean {
  return record !== undefined && (record.deadAt !== null || record.aliveUntil <= now);
}

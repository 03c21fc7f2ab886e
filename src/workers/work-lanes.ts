import type { AccountRoom, ClaimRequest, DueWorkRecord } from "../ports/storage";

/**
 * A lane: kinds that run in their own pool, so slow work (webhook deliveries waiting on
 * receivers) never takes the slots of everything else. Work of kinds in no lane runs in the
 * default lane (`WorkerOptions.concurrency`).
 */
export interface WorkLane {
  /** The kinds this lane runs. A kind belongs to one lane at most. */
  kinds: readonly string[];
  /** Items of this lane running at once in this process. */
  concurrency: number;
  /** At most this many items of one group leased at once, across every worker (see `ClaimRequest`). */
  groupLimit?: number;
  /** Lease of this lane's items; must outlast its slowest handler (default the runner's). */
  leaseMs?: number;
  /**
   * While items of the lane run, it claims again once this many of its slots are free (default
   * half a batch, so a claim's round trips serve several items). A lane whose items run long,
   * or hand their slots on, sets 1: a freed slot then does not sit idle waiting for others.
   */
  refillAt?: number;
  /**
   * Shares the lane's slots among accounts, so one account's slow or failing work cannot hold
   * another's: with n accounts holding slots of the lane in this process, a claim gives each at
   * most `fairShare(concurrency, n)` slots in all, and an account holding none at most
   * `fairShare(concurrency, n + 1)`. The accounts holding slots then never fill the lane: there
   * is always room for one more (see `fairShare`).
   */
  fairShares?: boolean;
  /** Groups whose items the lane does not claim now (asked before each claim; see `ClaimRequest.exceptGroups`). */
  heldBack?: () => readonly string[];
}

/**
 * One account's share of a lane of `slots` when `accounts` accounts hold slots of it:
 * `slots / (accounts + 1)`, rounded down, at least 1. Shares leave a slot in `accounts + 1` free
 * for an account that holds none yet: alone, an account takes half the lane, never all of it.
 */
export function fairShare(slots: number, accounts: number): number {
  return Math.max(1, Math.floor(slots / (accounts + 1)));
}

/** What a claim of a lane whose accounts hold `held` slots may take of each (see `WorkLane.fairShares`). */
export function accountRoom(slots: number, held: ReadonlyMap<string, number>): AccountRoom {
  const share = fairShare(slots, held.size);
  const room: Record<string, number> = {};
  for (const [account, n] of held) room[account] = Math.max(0, share - n);
  return { room, others: fairShare(slots, held.size + 1) };
}

/** A lane as a drain runs it. */
export interface LaneState extends WorkLane {
  /** Null for the default lane: every kind no other lane runs. */
  only: readonly string[] | null;
  running: number;
  /** Items of this lane finished in this drain. */
  finished: number;
  /**
   * Its last claim came back short: nothing more to claim until one of its items finishes
   * (freeing a group) or the runner is woken (new work was scheduled) after `dryAt`.
   */
  dry: boolean;
  dryAt: number;
  /** Slots of the lane each account holds now (only counted with `fairShares`). */
  held: Map<string, number>;
}

/** What a lane's claim asks for besides its time, owner and limit: its kinds, lease and group limit. */
export type LaneClaim = Pick<ClaimRequest, "leaseMs" | "onlyKinds" | "exceptKinds" | "groupLimit" | "accountRoom" | "exceptGroups">;

/** The lanes of one runner: the default lane, and those added for kinds of their own. */
export class WorkLanes {
  private readonly added: LaneState[] = [];

  /** Gives `lane.kinds` a pool of their own (see `WorkLane`). */
  add(lane: WorkLane): void {
    const taken = lane.kinds.find((kind) => this.added.some((l) => l.kinds.includes(kind)));
    if (taken !== undefined) throw new Error(`${taken} runs in a lane already`);
    if (!(lane.concurrency >= 1)) throw new RangeError("a lane needs a concurrency of at least 1");
    this.added.push({ ...lane, kinds: [...lane.kinds], only: [...lane.kinds], running: 0, finished: 0, dry: false, dryAt: 0, held: new Map() });
  }

  /** Every lane, counts at zero, for a drain: the default lane (of `concurrency` slots) first. */
  forDrain(concurrency: number): LaneState[] {
    const lanes: LaneState[] = [{ kinds: [], only: null, concurrency, running: 0, finished: 0, dry: false, dryAt: 0, held: new Map() }, ...this.added];
    for (const lane of lanes) {
      lane.running = 0;
      lane.finished = 0;
      lane.dry = false;
      lane.held = new Map();
    }
    return lanes;
  }

  /** What a claim of `lane` asks for, beside its time, owner and limit (`leaseMs`: the runner's). */
  claim(lane: LaneState, leaseMs: number): LaneClaim {
    const laned = this.added.flatMap((l) => l.kinds);
    const claim: LaneClaim = {
      leaseMs: lane.leaseMs ?? leaseMs,
      ...(lane.only ? { onlyKinds: lane.only } : laned.length ? { exceptKinds: laned } : {}),
      ...(lane.groupLimit !== undefined ? { groupLimit: lane.groupLimit } : {}),
      ...(lane.fairShares ? { accountRoom: accountRoom(lane.concurrency, lane.held) } : {}),
    };
    const heldBack = lane.heldBack?.() ?? [];
    return heldBack.length ? { ...claim, exceptGroups: heldBack } : claim;
  }
}

/** Counts a slot of `lane` taken (`+1`) or given back (`-1`) by `job`'s account, with `fairShares`. */
export function holdSlot(lane: LaneState, job: Pick<DueWorkRecord, "accountId">, delta: 1 | -1): void {
  if (!lane.fairShares || job.accountId === null) return;
  const n = (lane.held.get(job.accountId) ?? 0) + delta;
  if (n > 0) lane.held.set(job.accountId, n);
  else lane.held.delete(job.accountId);
}

/**
 * Whether `lane` claims now: not while it is dry since the latest wake (`wakes`), nor once the
 * runner is stopping, and, with work in hand, only once half a batch of its slots is free (or
 * its `refillAt`), not for every single slot: one claim per finished item would cost a claim's
 * round trips per item.
 */
export function claimable(lane: LaneState, { wakes, stopping, batchSize }: { wakes: number; stopping: boolean; batchSize: number }): boolean {
  const room = lane.refillAt ?? Math.max(1, Math.floor(Math.min(batchSize, lane.concurrency) / 2));
  return (!lane.dry || lane.dryAt !== wakes) && !stopping && lane.concurrency - lane.running >= (lane.running === 0 ? 1 : room);
}

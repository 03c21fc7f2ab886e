import type { ClaimRequest } from "../ports/storage";

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
}

/** What a lane's claim asks for besides its time, owner and limit: its kinds, lease and group limit. */
export type LaneClaim = Pick<ClaimRequest, "leaseMs" | "onlyKinds" | "exceptKinds" | "groupLimit">;

/** The lanes of one runner: the default lane, and those added for kinds of their own. */
export class WorkLanes {
  private readonly added: LaneState[] = [];

  /** Gives `lane.kinds` a pool of their own (see `WorkLane`). */
  add(lane: WorkLane): void {
    const taken = lane.kinds.find((kind) => this.added.some((l) => l.kinds.includes(kind)));
    if (taken !== undefined) throw new Error(`${taken} runs in a lane already`);
    if (!(lane.concurrency >= 1)) throw new RangeError("a lane needs a concurrency of at least 1");
    this.added.push({ ...lane, kinds: [...lane.kinds], only: [...lane.kinds], running: 0, finished: 0, dry: false, dryAt: 0 });
  }

  /** Every lane, counts at zero, for a drain: the default lane (of `concurrency` slots) first. */
  forDrain(concurrency: number): LaneState[] {
    const lanes: LaneState[] = [{ kinds: [], only: null, concurrency, running: 0, finished: 0, dry: false, dryAt: 0 }, ...this.added];
    for (const lane of lanes) {
      lane.running = 0;
      lane.finished = 0;
      lane.dry = false;
    }
    return lanes;
  }

  /** What a claim of `lane` asks for, beside its time, owner and limit (`leaseMs`: the runner's). */
  claim(lane: LaneState, leaseMs: number): LaneClaim {
    const laned = this.added.flatMap((l) => l.kinds);
    return {
      leaseMs: lane.leaseMs ?? leaseMs,
      ...(lane.only ? { onlyKinds: lane.only } : laned.length ? { exceptKinds: laned } : {}),
      ...(lane.groupLimit !== undefined ? { groupLimit: lane.groupLimit } : {}),
    };
  }
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

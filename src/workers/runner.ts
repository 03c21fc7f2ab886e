import type { IdGenerator, RandomSource } from "../ids";
import type { Clock } from "../ports/clock";
import { NO_OBSERVER, type EngineObserver, type WorkOutcomeKind } from "../ports/observer";
import type { DueWorkRecord, StorageAdapter } from "../ports/storage";
import type { ParseContext } from "../validation/schema";
import { inBackground } from "../concurrency/priority";
import { PermanentWorkError, toJob, type JobHandler, type WorkKind, type WorkScope } from "./due-work";

/**
 * What a handler tells the runner: finished (the item is deleted), run again later (a retry
 * that counts as a failed attempt), reschedule (recurring work; attempts start over), or
 * settled: the handler completed or released its own item (`tx.work.complete/release` with
 * `job.leaseOwner`) in the transaction that recorded its effect, so the effect and the queue
 * can never disagree, and the runner has nothing left to do. A settled handler may hand its
 * slot on in that same transaction (`tx.work.takeNext` with `job.leaseOwner`): the runner then
 * runs `next` at once in the same slot, without a claim, or gives its lease back if it is stopping.
 */
export type WorkOutcome =
  | { kind: "done" }
  | { kind: "retry"; at: number; error: string }
  | { kind: "reschedule"; at: number }
  | { kind: "settled"; next?: DueWorkRecord };

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

interface LaneState extends WorkLane {
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

/**
 * Runs one due work item as stored (see `WorkerRunner.handle` for typed work). Work is delivered
 * at least once: a crash after the effect but before completion runs it again, so handlers must
 * be idempotent (they act by ids chosen beforehand). Returning nothing means done; throwing
 * means retry with backoff, except a `PermanentWorkError`, which marks the item dead.
 */
export type WorkHandler = (job: DueWorkRecord) => Promise<WorkOutcome | void>;

export interface WorkerOptions {
  /** Items leased per claim statement (default 10). */
  batchSize?: number;
  /** Items running at once in this process (default 8). */
  concurrency?: number;
  /** How long a claim holds an item; must outlast the slowest handler (default 60 s). */
  leaseMs?: number;
  /** Idle wait between polls of the loop started by `start` (default 250 ms). */
  pollMs?: number;
  /** First retry delay after a thrown error; doubles per attempt (default 1 s). */
  backoffBaseMs?: number;
  /** Longest retry delay (default 1 h). */
  backoffMaxMs?: number;
  /**
   * After this many failed attempts in a row the item is marked dead and kept for inspection.
   * Default: never. Work that moves money must not stop (a payout left tracking nothing keeps its
   * reservation forever), so failures keep retrying at the capped backoff, their last error on
   * the item. A dead item frees its dedupe key, so the same work can be scheduled again.
   */
  maxAttempts?: number;
  /** Called with errors the runner swallowed (handler failures, poll failures). */
  onError?: (error: unknown, job?: DueWorkRecord) => void;
}

/** What typed work handlers parse payloads with (the engine's asset registry). */
export type WorkParseContext = ParseContext;

/**
 * The due-work runner: claims items whose time has come, runs their handlers with bounded
 * concurrency, and retries failures with exponential backoff (±10 % jitter). Claims carry a
 * lease; an item whose worker died is claimed again once its lease expires, so work survives
 * crashes. `runDue` drains what is due now (tests with the manual clock); `start` polls forever.
 */
export class WorkerRunner {
  readonly owner: string;
  private readonly handlers = new Map<string, WorkHandler>();
  private readonly lanes: LaneState[] = [];
  private readonly opts: Required<Omit<WorkerOptions, "onError">> & Pick<WorkerOptions, "onError">;
  private loop: Promise<void> | null = null;
  private stopping: AbortController | null = null;
  private nap: AbortController | null = null;
  private draining: Promise<number> | null = null;
  private woken = false;
  /** Counts wakes, so a drain can tell a lane's claim is older than the latest scheduled work. */
  private wakes = 0;
  /** Items this runner holds a lease on and is running now, by id. */
  private readonly running = new Map<string, DueWorkRecord>();
  private lastPoll: number | null = null;

  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    ids: IdGenerator,
    private readonly random: RandomSource,
    options: WorkerOptions = {},
    private readonly parseContext?: WorkParseContext,
    private readonly observer: EngineObserver = NO_OBSERVER,
  ) {
    this.owner = ids.next("wrk");
    this.opts = {
      batchSize: options.batchSize ?? 10,
      concurrency: options.concurrency ?? 8,
      leaseMs: options.leaseMs ?? 60_000,
      pollMs: options.pollMs ?? 250,
      backoffBaseMs: options.backoffBaseMs ?? 1_000,
      backoffMaxMs: options.backoffMaxMs ?? 3_600_000,
      maxAttempts: options.maxAttempts ?? Number.POSITIVE_INFINITY,
      onError: options.onError,
    };
  }

  /** The lease of a claim in the default lane (`WorkerOptions.leaseMs`). */
  get leaseMs(): number {
    return this.opts.leaseMs;
  }

  /** Registers the handler of a work kind as stored; one handler per kind. */
  register(kind: string, handler: WorkHandler): void {
    if (this.handlers.has(kind)) throw new Error(`a handler for ${kind} is registered already`);
    this.handlers.set(kind, handler);
  }

  /**
   * Registers the handler of typed work: each claimed item's payload is parsed with the kind's
   * schema and its account checked first, so `handler` receives a `Job` exactly as defined; an
   * item that does not fit is marked dead with the reason (it would never fit).
   */
  handle<P, S extends WorkScope>(def: WorkKind<P, S>, handler: JobHandler<P, S>): void {
    const ctx = this.parseContext;
    if (!ctx) throw new Error("typed work needs the runner's parse context");
    this.register(def.kind, (record) => handler(toJob(def, record, ctx)));
  }

  /** Gives `lane.kinds` a pool of their own (see `WorkLane`). */
  addLane(lane: WorkLane): void {
    const taken = lane.kinds.find((kind) => this.lanes.some((l) => l.kinds.includes(kind)));
    if (taken !== undefined) throw new Error(`${taken} runs in a lane already`);
    if (!(lane.concurrency >= 1)) throw new RangeError("a lane needs a concurrency of at least 1");
    this.lanes.push({ ...lane, kinds: [...lane.kinds], only: [...lane.kinds], running: 0, finished: 0, dry: false, dryAt: 0 });
  }

  /**
   * Runs everything due now, including work that becomes due while it runs, and resolves with
   * how many items ran. Concurrent calls share one drain.
   */
  runDue(): Promise<number> {
    if (!this.draining) {
      // background: storage serving one caller at a time serves requests first
      this.draining = inBackground(() => this.drain()).finally(() => {
        this.draining = null;
      });
    }
    return this.draining;
  }

  /** Starts the polling loop (idempotent). */
  start(): void {
    if (this.loop) return;
    const stopping = new AbortController();
    this.stopping = stopping;
    this.loop = (async () => {
      while (!stopping.signal.aborted) {
        let ran = 0;
        this.woken = false;
        try {
          ran = await this.runDue();
        } catch (e) {
          this.opts.onError?.(e);
        }
        // a wake that came while draining may be for work committed after the last claim
        if (ran > 0 || this.woken || stopping.signal.aborted) continue;
        this.nap = new AbortController();
        const wake = AbortSignal.any([stopping.signal, this.nap.signal]);
        await this.clock.sleep(this.opts.pollMs, wake).catch(() => undefined);
      }
    })();
  }

  /**
   * Says due work was just scheduled: cuts the current idle wait short, and lets a drain in
   * progress claim again in every lane. Whatever schedules due work calls it (the engine wires
   * it to every command and to the webhook fan-out).
   */
  wake(): void {
    this.woken = true;
    this.wakes++;
    this.nap?.abort();
  }

  /**
   * What the loop is doing, for readiness checks: `started` once `start` ran and until `stop`;
   * `lastPollAt` when it last asked storage for due work; `inFlight` items it runs now.
   */
  status(): { started: boolean; lastPollAt: number | null; inFlight: number } {
    return {
      started: this.loop !== null && !this.stopping?.signal.aborted,
      lastPollAt: this.lastPoll,
      inFlight: this.running.size,
    };
  }

  /**
   * Stops the loop (nothing more is claimed) and waits for the items in flight. With `graceMs`,
   * waits that long at most: the leases of items still running then are given back at once (so
   * another process claims them now, not when the lease would have run out), and `stop`
   * resolves with how many there were. Handlers are idempotent, so an item whose handler was
   * still running may run again elsewhere: at least once, as after a crash.
   */
  async stop(options: { graceMs?: number } = {}): Promise<{ released: number }> {
    this.stopping?.abort();
    const finished = Promise.all([this.loop, this.draining]).then(() => true);
    let done: boolean;
    if (options.graceMs === undefined) {
      done = await finished;
    } else {
      const timer = new AbortController();
      done = await Promise.race([
        finished,
        this.clock.sleep(Math.max(0, options.graceMs), timer.signal).then(
          () => false,
          () => false,
        ),
      ]);
      timer.abort();
    }
    this.loop = null;
    if (done || this.running.size === 0) return { released: 0 };
    return { released: await this.giveBack([...this.running.values()], "the worker stopped before the item finished") };
  }

  /** Ends this runner's leases of `jobs` so they can be claimed at once; returns how many it ended. */
  private giveBack(jobs: readonly DueWorkRecord[], why: string): Promise<number> {
    const now = this.clock.now();
    return this.storage
      .transaction(async (tx) => {
        let n = 0;
        for (const job of jobs) {
          if (await tx.work.release(job.id, this.owner, { runAt: now, lastError: `lease given back: ${why}` })) n++;
        }
        return n;
      })
      .catch((e: unknown) => {
        this.opts.onError?.(e);
        return 0;
      });
  }

  private async drain(): Promise<number> {
    let ran = 0;
    const inflight = new Set<Promise<void>>();
    const lanes: LaneState[] = [
      { kinds: [], only: null, concurrency: this.opts.concurrency, running: 0, finished: 0, dry: false, dryAt: 0 },
      ...this.lanes,
    ];
    const laned = this.lanes.flatMap((l) => l.kinds);
    for (const lane of lanes) {
      lane.running = 0;
      lane.finished = 0;
      lane.dry = false;
    }
    // A lane with work in hand claims again once half a batch is free (or its `refillAt`), not
    // for every single slot: one claim per finished item would cost a claim's round trips per item.
    const room = (lane: LaneState) => lane.refillAt ?? Math.max(1, Math.floor(Math.min(this.opts.batchSize, lane.concurrency) / 2));
    const claimable = (lane: LaneState) =>
      (!lane.dry || lane.dryAt !== this.wakes) &&
      !this.stopping?.signal.aborted &&
      lane.concurrency - lane.running >= (lane.running === 0 ? 1 : room(lane));
    for (;;) {
      for (const lane of lanes) {
        if (!claimable(lane)) continue;
        const limit = Math.min(lane.concurrency - lane.running, this.opts.batchSize);
        const wakes = this.wakes;
        const finished = lane.finished;
        this.lastPoll = this.clock.now();
        const jobs = await this.storage.claimDueWork({
          now: this.lastPoll,
          limit,
          leaseMs: lane.leaseMs ?? this.opts.leaseMs,
          owner: this.owner,
          ...(lane.only ? { onlyKinds: lane.only } : laned.length ? { exceptKinds: laned } : {}),
          ...(lane.groupLimit !== undefined ? { groupLimit: lane.groupLimit } : {}),
        });
        // Short means nothing more is claimable now, unless one of the lane's items finished during
        // the claim (it may have freed a group), or a wake came (work the claim could not see).
        lane.dry = jobs.length < limit && lane.finished === finished;
        lane.dryAt = wakes;
        for (const job of jobs) {
          lane.running++;
          const running: Promise<void> = this.runOne(job).then((n) => {
            ran += n - 1; // items handed on to this slot ran too
          }).finally(() => {
            inflight.delete(running);
            lane.running--;
            lane.finished++;
            lane.dry = false;
          });
          inflight.add(running);
          ran++;
        }
      }
      if (lanes.some(claimable)) continue;
      if (inflight.size === 0) return ran;
      await Promise.race(inflight);
    }
  }

  /** Runs `first`, then every item handed on to its slot (see `WorkOutcome`); returns how many ran. */
  private async runOne(first: DueWorkRecord): Promise<number> {
    let ran = 0;
    for (let job: DueWorkRecord | undefined = first; job; ran++) {
      this.running.set(job.id, job);
      const started = this.clock.now();
      let observed: WorkOutcomeKind = "retry";
      let next: DueWorkRecord | undefined;
      try {
        ({ observed, next } = await this.execute(job));
      } finally {
        this.running.delete(job.id);
        this.observer.workCompleted({ kind: job.kind, outcome: observed, durationMs: this.clock.now() - started, attempt: job.attempts });
      }
      if (next && this.stopping?.signal.aborted) {
        await this.giveBack([next], "the worker stopped before the item ran");
        next = undefined;
      }
      job = next;
    }
    return ran;
  }

  /** Runs the item's handler and settles the item as it says; returns what it decided, and the item handed on to its slot. */
  private async execute(job: DueWorkRecord): Promise<{ observed: WorkOutcomeKind; next?: DueWorkRecord }> {
    const handler = this.handlers.get(job.kind);
    let outcome: WorkOutcome;
    let dead = false;
    if (!handler) {
      // Nothing here can ever run it: kept, dead, for whoever deployed the kind to look at.
      outcome = this.failure(job, `no handler for work of kind ${job.kind} in this engine`);
      dead = true;
    } else {
      try {
        outcome = (await handler(job)) ?? { kind: "done" };
      } catch (e) {
        this.opts.onError?.(e, job);
        outcome = this.failure(job, e instanceof Error ? e.message : String(e));
        dead = e instanceof PermanentWorkError;
      }
    }
    dead ||= outcome.kind === "retry" && job.attempts >= this.opts.maxAttempts;
    try {
      if (outcome.kind === "settled") return outcome.next ? { observed: "settled", next: outcome.next } : { observed: "settled" };
      if (outcome.kind === "done") {
        await this.storage.transaction((tx) => tx.work.complete(job.id, this.owner));
      } else {
        await this.storage.transaction((tx) =>
          tx.work.release(job.id, this.owner, {
            runAt: outcome.at,
            lastError: outcome.kind === "retry" ? outcome.error : null,
            dead,
            resetAttempts: outcome.kind === "reschedule",
          }),
        );
      }
    } catch (e) {
      // The lease expires and the item runs again: at-least-once.
      this.opts.onError?.(e, job);
    }
    return { observed: dead ? "dead" : outcome.kind };
  }

  private failure(job: DueWorkRecord, error: string): WorkOutcome {
    return { kind: "retry", at: this.clock.now() + this.backoff(job.attempts), error };
  }

  /** Exponential backoff with ±10 % jitter after `attempts` failed attempts. */
  backoff(attempts: number): number {
    const base = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** Math.max(0, attempts - 1));
    const [byte = 128] = this.random(1);
    return Math.round(base * (0.9 + (0.2 * byte) / 255));
  }
}

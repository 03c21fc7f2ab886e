import type { IdGenerator, RandomSource } from "../ids";
import type { Clock } from "../ports/clock";
import { NO_OBSERVER, type EngineObserver, type WorkOutcomeKind } from "../ports/observer";
import type { DueWorkRecord, StorageAdapter } from "../ports/storage";
import type { ParseContext } from "../validation/schema";
import { inSpan, NO_TRACER, type Tracer } from "../ports/tracer";
import { workSpan } from "./work-span";
import { inBackground } from "../concurrency/priority";
import { causeOf } from "../errors";
import { StorageUnavailableError } from "../ports/storage/unavailable";
import { toJob, type JobHandler, type WorkKind, type WorkScope } from "./due-work";
import { WorkLanes, claimable as laneClaimable, holdSlot, type LaneState, type WorkLane } from "./work-lanes";
import { backoffMs, runAndSettle, type Settler, type WorkHandler } from "./work-settlement";
import { ProcessLease, type HeartbeatOptions } from "./process-lease";

// what handlers and modules outside this folder import from here
export type { WorkLane } from "./work-lanes";
export type { WorkHandler, WorkOutcome } from "./work-settlement";

/** How a runner claims, leases and retries work (every member has a default). */
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
  /**
   * The heartbeat of this process (`ProcessLease`): while the loop of `start` runs, the process
   * is an owner that others declare dead `lifetimeMs` after its last heartbeat, taking its work
   * over at once. Default (in `createEngine`): on, every 1 s for a life of 5 s, on storage that
   * runs transactions side by side (a PostgreSQL server) unless `exclusiveStorage`; off on
   * memory and PGlite (one process: nobody to take over from). `false`: off.
   */
  heartbeat?: Partial<HeartbeatOptions> | false;
  /** Called with errors the runner swallowed (handler failures, poll failures). */
  onError?: (error: unknown, job?: DueWorkRecord) => void;
}

/** The longest wait of the polling loop between claims that found storage unavailable. */
const UNAVAILABLE_BACKOFF_MAX_MS = 5_000;

/** What typed work handlers parse payloads with (the engine's asset registry). */
export type WorkParseContext = ParseContext;

/**
 * The due-work runner: claims items whose time has come, runs their handlers with bounded
 * concurrency, and retries failures with exponential backoff (±10 % jitter). Claims carry a
 * lease; an item whose worker died is claimed again once its lease expires, so work survives
 * crashes. `runDue` drains what is due now (tests with the manual clock); `start` polls forever.
 */
export class WorkerRunner {
  /** This process as an owner of leases (its heartbeat, if it has one). */
  readonly process: ProcessLease;
  private readonly handlers = new Map<string, WorkHandler>();
  private readonly lanes = new WorkLanes();
  private readonly opts: Required<Omit<WorkerOptions, "onError" | "heartbeat">> & Pick<WorkerOptions, "onError">;
  private loop: Promise<void> | null = null;
  /** Aborted by `stop`: drains claim no more and their waits end; `start` takes a fresh one. */
  private stopping = new AbortController();
  private nap: AbortController | null = null;
  private draining: Promise<number> | null = null;
  private woken = false;
  /** Drains waiting for the next `wake` (see `drain`). */
  private readonly wakeListeners = new Set<() => void>();
  /** Counts wakes, so a drain can tell a lane's claim is older than the latest scheduled work. */
  private wakes = 0;
  /** Items this runner holds a lease on and is running now, by id. */
  private readonly running = new Map<string, DueWorkRecord>();
  private lastPoll: number | null = null;
  /** What `runAndSettle` needs of this runner. */
  private readonly settler: Settler;

  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    ids: IdGenerator,
    private readonly random: RandomSource,
    options: WorkerOptions = {},
    private readonly parseContext?: WorkParseContext,
    private readonly observer: EngineObserver = NO_OBSERVER,
    process?: ProcessLease,
    private readonly tracer: Tracer = NO_TRACER,
  ) {
    this.process = process ?? new ProcessLease(storage, clock, ids, null);
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
    const { maxAttempts, onError } = this.opts;
    this.settler = {
      storage,
      clock,
      maxAttempts,
      backoff: (attempts) => this.backoff(attempts),
      onError,
      stopping: () => this.stopping.signal,
    };
  }

  /** The name this runner claims work under now (a process declared dead takes a new one). */
  get owner(): string {
    return this.process.owner;
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
    this.lanes.add(lane);
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
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    const stopping = this.stopping;
    void this.process.start();
    this.loop = (async () => {
      let failures = 0;
      while (!stopping.signal.aborted) {
        let ran = 0;
        this.woken = false;
        try {
          ran = await this.runDue();
          failures = 0;
        } catch (e) {
          // storage unavailable (a restart, a failover): wait longer each time, up to the cap, and go on
          failures = causeOf(e, StorageUnavailableError) ? failures + 1 : 0;
          this.opts.onError?.(e);
        }
        // a wake that came while draining may be for work committed after the last claim
        if (failures === 0 && (ran > 0 || this.woken || stopping.signal.aborted)) continue;
        this.nap = new AbortController();
        const wake = AbortSignal.any([stopping.signal, this.nap.signal]); // a commit means storage is back: no need to wait
        const wait = failures === 0 ? this.opts.pollMs : Math.min(UNAVAILABLE_BACKOFF_MAX_MS, this.opts.pollMs * 2 ** Math.min(failures, 10));
        await this.clock.sleep(wait, wake).catch(() => undefined);
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
    for (const listener of this.wakeListeners) listener();
    this.wakeListeners.clear();
  }

  /**
   * What the loop is doing, for readiness checks: `started` once `start` ran and until `stop`;
   * `lastPollAt` when it last asked storage for due work; `inFlight` items it runs now.
   */
  status(): { started: boolean; lastPollAt: number | null; inFlight: number } {
    return {
      started: this.loop !== null && !this.stopping.signal.aborted,
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
    this.stopping.abort(); // a drain run by runDue alone stops too
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
    const released = done || this.running.size === 0 ? 0 : await this.giveBack([...this.running.values()], "the worker stopped before the item finished");
    await this.process.stop();
    return { released };
  }

  /** Ends this runner's leases of `jobs` so they can be claimed at once; returns how many it ended. */
  private giveBack(jobs: readonly DueWorkRecord[], why: string): Promise<number> {
    const now = this.clock.now();
    return this.storage
      .transaction(async (tx) => {
        let n = 0;
        for (const job of jobs) {
          if (await tx.work.release(job.id, job.leaseOwner!, { runAt: now, lastError: `lease given back: ${why}` })) n++;
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
    const lanes = this.lanes.forDrain(this.opts.concurrency);
    const claimable = (lane: LaneState) => laneClaimable(lane, { wakes: this.wakes, stopping: this.stopping.signal.aborted, batchSize: this.opts.batchSize });
    for (;;) {
      for (const lane of lanes) {
        if (!claimable(lane)) continue;
        const limit = Math.min(lane.concurrency - lane.running, this.opts.batchSize);
        const wakes = this.wakes;
        const finished = lane.finished;
        this.lastPoll = this.clock.now();
        const jobs = await this.storage.claimDueWork({ now: this.lastPoll, limit, owner: this.owner, ...this.lanes.claim(lane, this.opts.leaseMs) });
        // Short means nothing more is claimable now, unless one of the lane's items finished during
        // the claim (it may have freed a group), or a wake came (work the claim could not see).
        lane.dry = jobs.length < limit && lane.finished === finished;
        lane.dryAt = wakes;
        for (const job of jobs) {
          lane.running++;
          const slot = { job };
          holdSlot(lane, job, 1);
          const running: Promise<void> = this.runOne(job, (next) => {
            // an item handed on to the slot: the slot is now its account's
            holdSlot(lane, slot.job, -1);
            holdSlot(lane, (slot.job = next), 1);
          })
            .then((n) => {
              ran += n - 1; // items handed on to this slot ran too
            })
            .finally(() => {
              holdSlot(lane, slot.job, -1);
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
      // New work may be due in a lane whose items all hang (slow receivers'): a wake claims for it
      // at once. After the turn of the event loop it came in, though: most wakes come from this
      // drain's own items committing, which then finish and let the loop claim for both at once.
      let woken!: () => void;
      await Promise.race([...inflight, new Promise<void>((resolve) => this.wakeListeners.add((woken = () => setImmediate(resolve))))]);
      this.wakeListeners.delete(woken);
    }
  }

  /** Runs `first`, then every item handed on to its slot (see `WorkOutcome`); returns how many ran. */
  private async runOne(first: DueWorkRecord, handedOn: (next: DueWorkRecord) => void): Promise<number> {
    let ran = 0;
    for (let job: DueWorkRecord | undefined = first; job; ran++) {
      if (job !== first) handedOn(job);
      this.running.set(job.id, job);
      const started = this.clock.now();
      let observed: WorkOutcomeKind = "retry";
      let next: DueWorkRecord | undefined;
      try {
        const item: DueWorkRecord = job;
        ({ observed, next } = await inSpan(
          this.tracer,
          `work ${item.kind}`,
          () => workSpan(item),
          () => runAndSettle(item, this.handlers.get(item.kind), this.settler),
          (span, settled) => span.setAttributes({ "payrail.work.outcome": settled.observed }),
        ));
      } finally {
        this.running.delete(job.id);
        const durationMs = this.clock.now() - started;
        this.observer.workCompleted({ kind: job.kind, outcome: observed, durationMs, attempt: job.attempts, id: job.id, requestId: job.request?.id ?? null });
      }
      if (next && this.stopping.signal.aborted) {
        await this.giveBack([next], "the worker stopped before the item ran");
        next = undefined;
      }
      job = next;
    }
    return ran;
  }

  /** Exponential backoff with ±10 % jitter after `attempts` failed attempts. */
  backoff(attempts: number): number {
    return backoffMs(attempts, this.opts.backoffBaseMs, this.opts.backoffMaxMs, this.random);
  }
}

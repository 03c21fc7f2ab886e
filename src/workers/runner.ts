import type { IdGenerator, RandomSource } from "../ids";
import type { Clock } from "../ports/clock";
import type { DueWorkRecord, StorageAdapter } from "../ports/storage";

/**
 * What a handler tells the runner: finished (the item is deleted), run again later (a retry
 * that counts as a failed attempt), or reschedule (recurring work; attempts start over).
 */
export type WorkOutcome =
  | { kind: "done" }
  | { kind: "retry"; at: number; error: string }
  | { kind: "reschedule"; at: number };

/**
 * Runs one due work item. Work is delivered at least once: a crash after the effect but before
 * completion runs it again, so handlers must be idempotent (they act by ids chosen beforehand).
 * Returning nothing means done; throwing means retry with backoff.
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
  /** After this many failed attempts the item is marked dead (default 20). */
  maxAttempts?: number;
  /** Called with errors the runner swallowed (handler failures, poll failures). */
  onError?: (error: unknown, job?: DueWorkRecord) => void;
}

/**
 * The due-work runner: claims items whose time has come, runs their handlers with bounded
 * concurrency, and retries failures with exponential backoff (±10 % jitter). Claims carry a
 * lease; an item whose worker died is claimed again once its lease expires, so work survives
 * crashes. `runDue` drains what is due now (tests with the manual clock); `start` polls forever.
 */
export class WorkerRunner {
  readonly owner: string;
  private readonly handlers = new Map<string, WorkHandler>();
  private readonly opts: Required<Omit<WorkerOptions, "onError">> & Pick<WorkerOptions, "onError">;
  private loop: Promise<void> | null = null;
  private stopping: AbortController | null = null;
  private nap: AbortController | null = null;
  private draining: Promise<number> | null = null;

  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    ids: IdGenerator,
    private readonly random: RandomSource,
    options: WorkerOptions = {},
  ) {
    this.owner = ids.next("wrk");
    this.opts = {
      batchSize: options.batchSize ?? 10,
      concurrency: options.concurrency ?? 8,
      leaseMs: options.leaseMs ?? 60_000,
      pollMs: options.pollMs ?? 250,
      backoffBaseMs: options.backoffBaseMs ?? 1_000,
      backoffMaxMs: options.backoffMaxMs ?? 3_600_000,
      maxAttempts: options.maxAttempts ?? 20,
      onError: options.onError,
    };
  }

  /** Registers the handler of a work kind; one handler per kind. */
  register(kind: string, handler: WorkHandler): void {
    if (this.handlers.has(kind)) throw new Error(`a handler for ${kind} is registered already`);
    this.handlers.set(kind, handler);
  }

  /**
   * Runs everything due now, including work that becomes due while it runs, and resolves with
   * how many items ran. Concurrent calls share one drain.
   */
  runDue(): Promise<number> {
    if (!this.draining) {
      this.draining = this.drain().finally(() => {
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
        try {
          ran = await this.runDue();
        } catch (e) {
          this.opts.onError?.(e);
        }
        if (ran > 0 || stopping.signal.aborted) continue;
        this.nap = new AbortController();
        const wake = AbortSignal.any([stopping.signal, this.nap.signal]);
        await this.clock.sleep(this.opts.pollMs, wake).catch(() => undefined);
      }
    })();
  }

  /** Cuts the current idle wait short so due work runs at once. */
  wake(): void {
    this.nap?.abort();
  }

  /** Stops the loop and waits for the items in flight. */
  async stop(): Promise<void> {
    this.stopping?.abort();
    await this.loop;
    await this.draining;
    this.loop = null;
  }

  private async drain(): Promise<number> {
    let ran = 0;
    const inflight = new Set<Promise<void>>();
    for (;;) {
      const free = this.opts.concurrency - inflight.size;
      const jobs =
        free > 0 && !this.stopping?.signal.aborted
          ? await this.storage.claimDueWork({
              now: this.clock.now(),
              limit: Math.min(free, this.opts.batchSize),
              leaseMs: this.opts.leaseMs,
              owner: this.owner,
            })
          : [];
      for (const job of jobs) {
        const running: Promise<void> = this.runOne(job).finally(() => inflight.delete(running));
        inflight.add(running);
        ran++;
      }
      if (jobs.length === 0 && inflight.size === 0) return ran;
      if (jobs.length === 0 || inflight.size >= this.opts.concurrency) await Promise.race(inflight);
    }
  }

  private async runOne(job: DueWorkRecord): Promise<void> {
    const handler = this.handlers.get(job.kind);
    let outcome: WorkOutcome;
    if (!handler) {
      outcome = this.failure(job, `no handler registered for ${job.kind}`);
    } else {
      try {
        outcome = (await handler(job)) ?? { kind: "done" };
      } catch (e) {
        this.opts.onError?.(e, job);
        outcome = this.failure(job, e instanceof Error ? e.message : String(e));
      }
    }
    try {
      if (outcome.kind === "done") {
        await this.storage.transaction((tx) => tx.work.complete(job.id, this.owner));
      } else {
        const dead = outcome.kind === "retry" && job.attempts >= this.opts.maxAttempts;
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

import type { RandomSource } from "../ids";
import type { Clock } from "../ports/clock";
import type { WorkOutcomeKind } from "../ports/observer";
import type { DueWorkRecord, StorageAdapter } from "../ports/storage";
import { PermanentWorkError } from "./due-work";
import { causeOf } from "../errors";
import { StorageUnavailableError } from "../ports/storage/unavailable";

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
 * Runs one due work item as stored (see `WorkerRunner.handle` for typed work). Work is delivered
 * at least once: a crash after the effect but before completion runs it again, so handlers must
 * be idempotent (they act by ids chosen beforehand). Returning nothing means done; throwing
 * means retry with backoff, except a `PermanentWorkError`, which marks the item dead.
 */
export type WorkHandler = (job: DueWorkRecord) => Promise<WorkOutcome | void>;

/** What running and settling an item needs of its runner. */
export interface Settler {
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  /** After this many failed attempts in a row the item is marked dead (`WorkerOptions.maxAttempts`). */
  readonly maxAttempts: number;
  /** The wait before a failed item runs again, after `attempts` failed attempts. */
  backoff(attempts: number): number;
  onError?: ((error: unknown, job?: DueWorkRecord) => void) | undefined;
  /**
   * The runner's stop: a settle that storage refuses is not tried again after it aborts, and a
   * wait before the next try ends when it does.
   */
  stopping?: () => AbortSignal;
}

/**
 * Runs the item's handler (`undefined`: no handler in this engine) and settles the item as it
 * says; returns what it decided, and the item handed on to its slot. An item nothing here can
 * ever run (no handler, a `PermanentWorkError`, or out of attempts) is kept, dead, for whoever
 * deployed the kind to look at.
 */
export async function runAndSettle(
  job: DueWorkRecord,
  handler: WorkHandler | undefined,
  settler: Settler,
): Promise<{ observed: WorkOutcomeKind; next?: DueWorkRecord }> {
  const failure = (error: string): WorkOutcome => ({ kind: "retry", at: settler.clock.now() + settler.backoff(job.attempts), error });
  let outcome: WorkOutcome;
  let dead = false;
  if (!handler) {
    outcome = failure(`no handler for work of kind ${job.kind} in this engine`);
    dead = true;
  } else {
    try {
      outcome = (await handler(job)) ?? { kind: "done" };
    } catch (e) {
      settler.onError?.(e, job);
      outcome = failure(e instanceof Error ? e.message : String(e));
      dead = e instanceof PermanentWorkError;
    }
  }
  dead ||= outcome.kind === "retry" && job.attempts >= settler.maxAttempts;
  if (outcome.kind === "settled") return outcome.next ? { observed: "settled", next: outcome.next } : { observed: "settled" };
  const settle = () =>
    outcome.kind === "done"
      ? settler.storage.transaction((tx) => tx.work.complete(job.id, job.leaseOwner!))
      : settler.storage.transaction((tx) =>
          tx.work.release(job.id, job.leaseOwner!, {
            runAt: outcome.at,
            lastError: outcome.kind === "retry" ? outcome.error : null,
            dead,
            resetAttempts: outcome.kind === "reschedule",
          }),
        );
  for (let tries = 1; ; tries++) {
    try {
      await settle();
      break;
    } catch (e) {
      settler.onError?.(e, job);
      // Storage unavailable for a moment (a restart, a failover): try again shortly, so the item is
      // not left leased until its lease runs out. Otherwise (or for too long) the lease expires and
      // the item runs again: at least once.
      const stop = settler.stopping?.();
      if (!causeOf(e, StorageUnavailableError) || tries >= SETTLE_TRIES || stop?.aborted) break;
      // a stop ends the wait (a manual clock would never end it): the item runs again, at least once
      await settler.clock.sleep(Math.min(2_000, 100 * 2 ** tries), stop).catch(() => undefined);
      if (stop?.aborted) break;
    }
  }
  return { observed: dead ? "dead" : outcome.kind };
}

/** Attempts at settling an item while storage is unavailable (about 12 s in all). */
const SETTLE_TRIES = 8;

/** Exponential backoff from `baseMs`, capped at `maxMs`, with ±10 % jitter, after `attempts` failed attempts. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number, random: RandomSource): number {
  const base = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  const [byte = 128] = random(1);
  return Math.round(base * (0.9 + (0.2 * byte) / 255));
}

/**
 * The delivery schedule of docs/decisions.md §6 (Svix's, cut to the seed's 24 hours): after failed
 * attempt n (1 to 6) the next comes 5 s, 5 min, 30 min, 2 h, 5 h, 10 h later, each ±10 %; the
 * eighth and last attempt comes 24 hours after the first (up to 10 % of the remaining wait
 * earlier, never later). A `Retry-After` (429 and 503 only) may push a retry later than its
 * slot, but never past the slot after it, nor past the 24 hours.
 */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 2;
const JITTER = 0.1;

export interface RetryInput {
  /** The attempt that just failed (1-based). */
  attempt: number;
  /** When the delivery was scheduled: the 24 hours run from there. */
  firstAt: number;
  /** When the failure was recorded. */
  now: number;
  /** What the receiver's `Retry-After` asked for, in seconds, or null (or not a 429/503). */
  retryAfterSeconds: number | null;
  /** A uniform draw in [0, 1) for the jitter. */
  jitter: number;
}

/** When the next attempt is due, or null when the attempt that failed was the last. */
export function nextAttemptAt(input: RetryInput): number | null {
  const { attempt, firstAt, now, retryAfterSeconds, jitter } = input;
  const last = firstAt + DELIVERY_WINDOW_MS;
  if (attempt >= MAX_DELIVERY_ATTEMPTS || now >= last) return null;
  const delay = RETRY_DELAYS_MS[attempt - 1];
  const finalSlot = last - (last - now) * JITTER * jitter;
  let next = delay === undefined ? finalSlot : Math.min(last, now + delay * (1 - JITTER + 2 * JITTER * jitter));
  if (retryAfterSeconds !== null && retryAfterSeconds > 0) {
    const following = RETRY_DELAYS_MS[attempt];
    const cap = delay === undefined ? last : Math.min(last, next + (following ?? last - next));
    next = Math.min(cap, Math.max(next, now + retryAfterSeconds * 1000));
  }
  return Math.ceil(Math.max(next, now));
}

/** Whether a response's `Retry-After` counts (docs/decisions.md §6: on 429 and 503). */
export function honoursRetryAfter(status: number): boolean {
  return status === 429 || status === 503;
}

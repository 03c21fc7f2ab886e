/**
 * Rate limits: sliding windows of hits per key, shared by every engine process on the store.
 */

/** What taking a slot of a window answered. */
export type RateLimitTake = { accepted: true } | { accepted: false; retryAt: number };

/** The hits of one key at one moment (hits at the same millisecond share a row). */
export interface RateLimitHits {
  at: number;
  count: number;
}

export interface RateLimitStore {
  /**
   * Takes a slot of `key`'s sliding window: accepted, and recorded as a hit at `now`, when fewer
   * than `limit` hits were accepted in `(now - windowMs, now]`; refused otherwise (nothing is
   * recorded), with `retryAt`, the first moment a slot is free again (`slidingWindowTake`).
   * Takes of one key are serialised: two takes of the last slot never both succeed.
   */
  take(key: string, now: number, windowMs: number, limit: number): Promise<RateLimitTake>;
  /** Deletes hits recorded before `before`; returns how many rows. */
  pruneBefore(before: number, limit: number): Promise<number>;
}

/**
 * The decision of `RateLimitStore.take` over the key's hits in the window (`at > now -
 * windowMs`), the same in every adapter: accepted below `limit`; refused at or above it, until
 * the hit that keeps the window full leaves it (`retryAt` = its time + `windowMs`: from then on
 * fewer than `limit` hits remain, if none was accepted meanwhile).
 */
export function slidingWindowTake(hits: readonly RateLimitHits[], now: number, windowMs: number, limit: number): RateLimitTake {
  const inWindow = hits.filter((h) => h.at > now - windowMs && h.at <= now).sort((a, b) => a.at - b.at);
  const total = inWindow.reduce((sum, h) => sum + h.count, 0);
  if (total < limit) return { accepted: true };
  // the window frees a slot once the oldest (total - limit + 1) hits have left it
  let leaving = total - limit + 1;
  for (const hit of inWindow) {
    leaving -= hit.count;
    if (leaving <= 0) return { accepted: false, retryAt: hit.at + windowMs };
  }
  /* c8 ignore next */
  throw new Error("unreachable: the window holds at least `limit` hits");
}

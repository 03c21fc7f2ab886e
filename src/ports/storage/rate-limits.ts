/**
 * Rate limits: fixed windows, shared by every engine process on the store.
 */

export interface RateLimitStore {
  /** Counts one more hit of `key` in the window starting at `windowStart`; returns the count. */
  hit(key: string, windowStart: number): Promise<number>;
  /** Deletes windows that started before `before`; returns how many. */
  pruneBefore(before: number, limit: number): Promise<number>;
}

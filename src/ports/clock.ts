/**
 * The only source of time in the core. Nothing in `src/` reads the system time or sets a timer
 * itself, so a manual clock makes the whole engine deterministic.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. Called on every state change; must be cheap. */
  now(): number;
  /**
   * Resolves once this clock has moved `ms` forward (a manual clock: when a test advances it).
   * Rejects with the signal's reason if `signal` aborts first. Used by the worker loop to wait
   * between polls.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A clock that tests drive by hand. The engine's test helper `clock/advance` needs one. */
export interface ManualClockControl extends Clock {
  /** Moves time forward by `ms` (>= 0) and wakes every sleeper whose time has come. */
  advance(ms: number): void;
}

export function isManualClock(clock: Clock): clock is ManualClockControl {
  return typeof (clock as Partial<ManualClockControl>).advance === "function";
}

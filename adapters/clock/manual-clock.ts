import type { ManualClockControl } from "../../src/ports/public";

interface Sleeper {
  wakeAt: number;
  resolve: () => void;
}

/**
 * Time that moves only when a test says so. `advance(ms)` wakes every sleeper whose time has
 * come, in wake-up order; with it a test runs hours of retries and expiries in milliseconds.
 */
export class ManualClock implements ManualClockControl {
  private current: number;
  private sleepers: Sleeper[] = [];

  /** Starts at `start` (epoch ms); default 2026-01-01T00:00:00Z so ids and dates are stable. */
  constructor(start: number = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError("advance takes a finite, non-negative number of ms");
    this.current += ms;
    const due = this.sleepers.filter((s) => s.wakeAt <= this.current).sort((a, b) => a.wakeAt - b.wakeAt);
    this.sleepers = this.sleepers.filter((s) => s.wakeAt > this.current);
    for (const sleeper of due) sleeper.resolve();
  }

  /** Moves to an absolute time (never backwards). */
  set(ms: number): void {
    this.advance(Math.max(0, ms - this.current));
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      if (ms <= 0) return resolve();
      const sleeper: Sleeper = {
        wakeAt: this.current + ms,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  }
}

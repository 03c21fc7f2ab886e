import { AsyncLocalStorage } from "node:async_hooks";

const background = new AsyncLocalStorage<true>();

/**
 * Runs `fn` (and everything it awaits) as background work: a store that serves one caller at a
 * time (PGlite's single session) lets waiting requests go first. The worker runner runs its
 * drains this way; requests run in the foreground, the default.
 */
export function inBackground<T>(fn: () => T): T {
  return background.run(true, fn);
}

/** Whether the caller runs inside `inBackground`. */
export function isBackground(): boolean {
  return background.getStore() === true;
}

interface Waiter {
  grant: () => void;
  since: number;
}

/**
 * Runs async functions one at a time, foreground callers ahead of background ones (see
 * `inBackground`), each class in call order. So background work never starves, a background
 * waiter goes next once it has waited `maxBackgroundWaitMs`, or once `maxForegroundRun`
 * foreground callers in a row went ahead of it.
 */
export class PriorityMutex {
  private busy = false;
  private readonly foreground: Waiter[] = [];
  private readonly backgroundQueue: Waiter[] = [];
  private foregroundRun = 0;

  constructor(
    private readonly options: {
      /** Milliseconds from a monotonic source (the driver passes `performance.now`), for how long a caller waited. */
      now: () => number;
      maxBackgroundWaitMs?: number;
      maxForegroundRun?: number;
    },
  ) {}

  /** Callers waiting now, by class (for tests and metrics). */
  get waiting(): { foreground: number; background: number } {
    return { foreground: this.foreground.length, background: this.backgroundQueue.length };
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const isBackgroundCaller = isBackground();
    // An embedded database answers through promises alone: background work chaining its calls
    // would never let the event loop read a new request. It steps aside for I/O first.
    if (isBackgroundCaller) await new Promise<void>((resolve) => setImmediate(resolve));
    await this.acquire(isBackgroundCaller);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(isBackgroundCaller: boolean): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve();
    }
    return new Promise((grant) => (isBackgroundCaller ? this.backgroundQueue : this.foreground).push({ grant, since: this.options.now() }));
  }

  /** Whether `waiter`, the oldest background caller, goes before the next foreground one. */
  private backgroundDue(waiter: Waiter): boolean {
    return (
      this.foreground.length === 0 ||
      this.foregroundRun >= (this.options.maxForegroundRun ?? 16) ||
      this.options.now() - waiter.since >= (this.options.maxBackgroundWaitMs ?? 500)
    );
  }

  private release(): void {
    const oldestBackground = this.backgroundQueue[0];
    if (oldestBackground !== undefined && this.backgroundDue(oldestBackground)) {
      this.backgroundQueue.shift();
      // it starts after pending I/O, so a request read meanwhile still goes first
      setImmediate(() => {
        if (this.backgroundDue(oldestBackground)) {
          this.foregroundRun = 0;
          return oldestBackground.grant();
        }
        this.backgroundQueue.unshift(oldestBackground);
        this.release();
      });
      return;
    }
    const next = this.foreground.shift();
    if (!next) {
      this.busy = false;
      return;
    }
    // counts foreground grants that went ahead of a waiting background caller
    this.foregroundRun = oldestBackground === undefined ? 0 : this.foregroundRun + 1;
    next.grant();
  }
}

/**
 * At most `limit` background callers (see `inBackground`) at once; foreground callers pass
 * straight through. A pool of database sessions keeps the rest for requests, so a request never
 * queues for a session behind a backlog of background transactions.
 */
export class BackgroundLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError("a background limit needs at least 1");
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!isBackground()) return fn();
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next)
        next(); // the slot passes to the next waiter
      else this.running--;
    }
  }
}

import { AsyncLocalStorage } from "node:async_hooks";
import { causeOf } from "../errors";
import type { Clock } from "../ports/clock";
import type { StorageSessionWatch } from "../ports/guard";
import { StorageUnavailableError, type StorageUnavailableReason } from "../ports/storage/unavailable";

/** Storage failing now: since when, why, and whether reads still work (a full disk). */
export interface StorageFailure {
  since: number;
  reason: StorageUnavailableReason;
  message: string;
  writesOnly: boolean;
}

/** What a request's storage calls committed (see `StorageWatch.track`). */
interface RequestEffects {
  committed: boolean;
}

/**
 * Watches the outcome of every storage session the engine opens (through `guardStorage`):
 *
 * - **health**: a `StorageUnavailableError` marks storage failing, and it stays failing until a
 *   session succeeds again (one that wrote, when the failure left reads working: a full disk, a
 *   read-only database). `/readyz` reads it, and probes storage with a write while it is failing,
 *   so a host taken out of rotation still finds out when storage is back;
 * - **a request's effects**: inside `track`, whether any session that wrote committed (a
 *   transaction that resolved, or an autocommit session that wrote whatever its outcome). The
 *   idempotency middleware asks it to tell a failure that changed nothing (the key is released)
 *   from one that follows a commit (the answer is saved).
 */
export class StorageWatch implements StorageSessionWatch {
  private readonly requests = new AsyncLocalStorage<RequestEffects>();
  private current: StorageFailure | null = null;
  private readonly listeners: ((failure: StorageFailure | null, previous: StorageFailure | null) => void)[] = [];

  constructor(private readonly clock: Clock) {}

  /** Storage failing now, or null. */
  get failure(): StorageFailure | null {
    return this.current;
  }

  /** Calls `listener` each time storage starts failing (or fails otherwise) and when it is back (null), with what it was before. */
  onChange(listener: (failure: StorageFailure | null, previous: StorageFailure | null) => void): void {
    this.listeners.push(listener);
  }

  private set(failure: StorageFailure | null): void {
    const previous = this.current;
    this.current = failure;
    for (const listener of this.listeners) {
      try {
        listener(failure, previous);
      } catch {
        // a listener (a log line) never fails a storage session
      }
    }
  }

  /** Runs `fn`, and says whether a storage session it opened committed a write. */
  async track<T>(fn: () => Promise<T>): Promise<{ value: T; committed: boolean }> {
    const effects: RequestEffects = { committed: false };
    const value = await this.requests.run(effects, fn);
    return { value, committed: effects.committed };
  }

  /** Runs `fn` outside any request's tracking: what it writes is bookkeeping (a rate limit's count), not the request's effect. */
  untracked<T>(fn: () => Promise<T>): Promise<T> {
    return this.requests.exit(fn);
  }

  begin(kind: "transaction" | "autocommit" | "claim"): { succeeded(wrote: boolean): void; failed(error: unknown, wrote: boolean): void } {
    const effects = this.requests.getStore(); // the caller's request, taken before any await
    return {
      succeeded: (wrote) => {
        if (wrote && effects) effects.committed = true;
        if (this.current && (wrote || !this.current.writesOnly)) this.set(null);
      },
      failed: (error, wrote) => {
        // an autocommit session keeps what its earlier calls wrote
        if (kind === "autocommit" && wrote && effects) effects.committed = true;
        const unavailable = causeOf(error, StorageUnavailableError);
        if (!unavailable) return;
        if (this.current && this.current.reason === unavailable.reason) return;
        this.set({ since: this.clock.now(), reason: unavailable.reason, message: unavailable.message, writesOnly: unavailable.writesOnly });
      },
    };
  }
}

import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";
import type { EngineDeps } from "./context";
import type { StorageWatch } from "./storage-watch";

/** A limit on one kind of request: at most `limit` per `windowMs` per API key. */
export interface RateLimit {
  name: string;
  limit: number;
  windowMs: number;
}

/** DECISIONS.md §3: 20 batch submissions per minute per API key. */
export const BATCH_SUBMISSIONS: RateLimit = { name: "payout_batches", limit: 20, windowMs: 60_000 };

/**
 * Fixed-window rate limits counted in storage, so every engine process on one database shares
 * them. Over the limit: 429 `rate_limited` with `Retry-After` (seconds to the next window).
 */
export class RateLimitService {
  constructor(
    private readonly deps: EngineDeps,
    private readonly watch: StorageWatch,
  ) {}

  async hit(keyHash: string, rule: RateLimit): Promise<Result<void, ApiError>> {
    const now = this.deps.clock.now();
    const windowStart = now - (now % rule.windowMs);
    // the count is bookkeeping, not an effect of the request: it does not make a failure "completed" (`StorageWatch.untracked`)
    const counted = () => this.deps.storage.transaction((tx) => tx.rateLimits.hit(`${rule.name}:${keyHash}`, windowStart));
    const count = await this.watch.untracked(counted);
    if (count <= rule.limit) return ok(undefined);
    const retryAfter = Math.max(1, Math.ceil((windowStart + rule.windowMs - now) / 1000));
    return fail("rate_limited", `At most ${rule.limit} requests of this kind per ${rule.windowMs / 1000} s per API key`, {
      retryAfter,
    });
  }
}

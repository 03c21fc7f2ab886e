import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";
import type { EngineDeps } from "./context";
import type { StorageWatch } from "./storage-watch";

/** A limit on one kind of request: at most `limit` in any `windowMs` per API key. */
export interface RateLimit {
  name: string;
  limit: number;
  windowMs: number;
}

/** docs/decisions.md §3: 20 batch submissions per minute per API key (any rolling minute). */
export const BATCH_SUBMISSIONS: RateLimit = { name: "payout_batches", limit: 20, windowMs: 60_000 };

/**
 * Sliding-window rate limits counted in storage, so every engine process on one database shares
 * them: a request is accepted while fewer than `limit` were accepted in the `windowMs` before it,
 * so no `windowMs` anywhere (a minute boundary included) holds more than `limit`. Over the limit:
 * 429 `rate_limited` with `Retry-After`, the whole seconds until a slot frees; refused requests
 * take no slot.
 */
export class RateLimitService {
  constructor(
    private readonly deps: EngineDeps,
    private readonly watch: StorageWatch,
  ) {}

  async hit(keyHash: string, rule: RateLimit): Promise<Result<void, ApiError>> {
    const now = this.deps.clock.now();
    // the count is bookkeeping, not an effect of the request: it does not make a failure "completed" (`StorageWatch.untracked`)
    const take = () => this.deps.storage.transaction((tx) => tx.rateLimits.take(`${rule.name}:${keyHash}`, now, rule.windowMs, rule.limit));
    const taken = await this.watch.untracked(take);
    if (taken.accepted) return ok(undefined);
    const retryAfter = Math.max(1, Math.ceil((taken.retryAt - now) / 1000));
    return fail("rate_limited", `At most ${rule.limit} requests of this kind in any ${rule.windowMs / 1000} s per API key`, {
      retryAfter,
    });
  }
}

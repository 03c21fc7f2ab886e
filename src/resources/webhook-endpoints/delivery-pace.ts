import type { ModuleDeps } from "../../engine/context";
import type { WebhookEndpointDoc } from "./webhook-endpoint-doc";

/** The window of an endpoint's `rate_limit`: deliveries per second. */
export const RATE_WINDOW_MS = 1_000;

/** The rate-limit key of an endpoint's attempts (`RateLimitStore`: shared by every engine process). */
export const rateKey = (endpointId: string): string => `webhook_endpoint:${endpointId}`;

/**
 * Per-endpoint rate limits (`rate_limit`, deliveries per second) as the scheduler honours them:
 * an attempt to a limited endpoint first takes a slot of the endpoint's sliding window of one
 * second in storage (so every engine process shares it); when none is free the item sends
 * nothing more, its unsent events go on in an item due when the window frees a slot, and this
 * process claims none of the endpoint's items until then (`heldBack`, the delivery lane's
 * `WorkLane.heldBack`): an endpoint out of slots takes no worker slot and no claim from the others.
 */
export class DeliveryPace {
  /** Endpoints out of slots in this process, with the moment their window frees one. */
  private readonly waiting = new Map<string, number>();

  constructor(private readonly deps: Pick<ModuleDeps, "clock" | "storage">) {}

  /**
   * Takes a slot of `endpoint`'s window for one attempt now: null when the attempt may go (always,
   * for an endpoint without a limit), else the moment a slot frees.
   */
  async take(endpoint: Pick<WebhookEndpointDoc, "id" | "rateLimit">): Promise<number | null> {
    const limit = endpoint.rateLimit;
    if (!limit) return null;
    const now = this.deps.clock.now();
    const until = this.waiting.get(endpoint.id);
    if (until !== undefined && until > now) return until;
    const taken = await this.deps.storage.engineWork((tx) => tx.rateLimits.take(rateKey(endpoint.id), now, RATE_WINDOW_MS, limit));
    if (taken.accepted) {
      this.waiting.delete(endpoint.id);
      return null;
    }
    this.waiting.set(endpoint.id, taken.retryAt);
    return taken.retryAt;
  }

  /** The endpoints whose items this process does not claim now: out of slots until their window moves on. */
  heldBack(): string[] {
    const now = this.deps.clock.now();
    const out: string[] = [];
    for (const [id, until] of this.waiting) {
      if (until > now) out.push(id);
      else this.waiting.delete(id);
    }
    return out;
  }
}

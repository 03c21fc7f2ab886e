import type { EngineDeps } from "../engine/context";
import { s } from "../validation/schema";
import { defineEngineWork, type JobHandler } from "./due-work";

/** Hourly housekeeping (engine work: it serves every account). */
export const MAINTENANCE = defineEngineWork("maintenance.prune", s.object({}));
export const MAINTENANCE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 5_000;
/** Rate-limit windows are minutes; an hour of them is more than any window needs. */
const RATE_WINDOW_KEPT_MS = 3_600_000;
/** Owners dead this long are forgotten: every claim they could have held ran out long before. */
const DEAD_OWNERS_KEPT_MS = 24 * 3_600_000;

/**
 * Hourly housekeeping: events past retention (30 days), webhook attempts past the delivery log's
 * retention (7 days), expired idempotency keys, old rate-limit windows and owners dead for a day are deleted in bounded
 * batches. It reschedules itself; one item exists at a time (dedupe key).
 */
export function maintenanceHandler(deps: EngineDeps): JobHandler<Record<string, never>, "engine"> {
  return async () => {
    const now = deps.clock.now();
    let more = true;
    while (more) {
      const pruned = await deps.storage.transaction(async (tx) => [
        await tx.events.pruneBefore(now - deps.config.eventRetentionMs, PRUNE_BATCH),
        await tx.idempotency.pruneExpired(now, PRUNE_BATCH),
        await tx.deliveries.pruneBefore(now - deps.config.deliveryLogRetentionMs, PRUNE_BATCH),
        await tx.rateLimits.pruneBefore(now - RATE_WINDOW_KEPT_MS, PRUNE_BATCH),
        await tx.owners.prune(now - DEAD_OWNERS_KEPT_MS, PRUNE_BATCH),
      ]);
      // a store that drops whole days counts them too: a batch or more means there may be more
      more = pruned.some((n) => n >= PRUNE_BATCH);
    }
    return { kind: "reschedule", at: now + MAINTENANCE_EVERY_MS };
  };
}

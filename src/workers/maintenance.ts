import type { EngineDeps } from "../services/context";
import type { WorkHandler } from "./runner";

export const MAINTENANCE_KIND = "maintenance.prune";
export const MAINTENANCE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 5_000;

/**
 * Hourly housekeeping: events past retention (30 days) and expired idempotency keys are deleted
 * in bounded batches. It reschedules itself; one item exists at a time (dedupe key).
 */
export function maintenanceHandler(deps: EngineDeps): WorkHandler {
  return async () => {
    const now = deps.clock.now();
    let more = true;
    while (more) {
      const [events, keys] = await deps.storage.transaction(async (tx) => [
        await tx.events.pruneBefore(now - deps.config.eventRetentionMs, PRUNE_BATCH),
        await tx.idempotency.pruneExpired(now, PRUNE_BATCH),
      ]);
      more = events === PRUNE_BATCH || keys === PRUNE_BATCH;
    }
    return { kind: "reschedule", at: now + MAINTENANCE_EVERY_MS };
  };
}

import { BoundedMap } from "../../collections/bounded-map";
import { groupBy } from "../../collections/group-by";
import type { ModuleDeps } from "../../engine/context";
import type { DeliveryJob } from "./delivery-read";
import type { SentItem } from "./delivery-record";
import { transition, type WebhookEndpointsService } from "./webhook-endpoints-service";

/**
 * Endpoints that heal or retire (Svix's rule): an endpoint remembers when its first delivery
 * failed since the last one that succeeded (`failingSince` in its document). A success clears it;
 * an attempt that fails `config.webhookDisableAfterMs` (default 5 days) or more after it disables
 * the endpoint (`disabled_reason: "failing"`, audited, with a `webhook_endpoint.disabled` event
 * to the account's other endpoints). Its owner enables it again (the window starts afresh) and
 * re-sends what failed with `recover`.
 *
 * Only changes are written: the first failure, the success after failures, and the disabling;
 * a delivery that succeeds like the one before it, or fails like the one before it, writes nothing.
 */

/** An attempt as health counts it: when it was made, and whether the receiver acknowledged it. */
export interface HealthAttempt {
  at: number;
  succeeded: boolean;
}

/**
 * `failingSince` after `attempts` (in any order; counted in the order they were made, a success
 * counted after the failures of its very millisecond).
 */
export function failingSinceAfter(current: number | null, attempts: readonly HealthAttempt[]): number | null {
  let since = current;
  const ordered = [...attempts].sort((x, y) => x.at - y.at || Number(x.succeeded) - Number(y.succeeded));
  for (const a of ordered) since = a.succeeded ? null : (since ?? a.at);
  return since;
}

/** Whether an endpoint failing since `since` is disabled by a failed attempt at `at`. */
export function failedForTheWindow(since: number | null, at: number, windowMs: number): boolean {
  return since !== null && at - since >= windowMs;
}

/** Endpoints whose `failingSince` the process keeps. */
const KNOWN = 4096;

export class EndpointHealth {
  /** What this process last wrote or read of endpoints' `failingSince` (null kept as undefined: then the item's read counts). */
  private readonly known = new BoundedMap<string, number>(KNOWN);

  constructor(
    private readonly deps: Pick<ModuleDeps, "config" | "storage">,
    private readonly endpoints: WebhookEndpointsService,
  ) {}

  /**
   * Counts the attempts of items just recorded (those that met a 410 are the gone rule's). Writes
   * only when an endpoint's `failingSince` changes or it fails for the window; each write decides
   * again from the endpoint as stored, locked.
   */
  async observe(items: readonly SentItem[]): Promise<void> {
    for (const [endpointId, mine] of groupBy(items, (item) => item.delivery.endpoint.id)) {
      const attempts = mine.flatMap(({ sent }) => sent.map((s) => ({ at: s.at, succeeded: s.outcome.status === "succeeded" })));
      if (!attempts.length || mine.some(({ sent }) => sent.some((s) => s.outcome.gone))) continue;
      // as read with the item, and as this process last wrote it (another process may have written since either)
      const read = mine[0]!.delivery.endpoint.failingSince ?? null;
      const known = this.known.get(endpointId) ?? read;
      const last = Math.max(...attempts.map((a) => a.at));
      const changes = [read, known].some((since) => {
        const next = failingSinceAfter(since, attempts);
        return next !== since || failedForTheWindow(next, last, this.deps.config.webhookDisableAfterMs);
      });
      if (!changes) continue;
      await this.write(mine[0]!.delivery.job, endpointId, attempts, last);
    }
  }

  private async write(job: DeliveryJob, endpointId: string, attempts: HealthAttempt[], last: number): Promise<void> {
    const disabled = await this.endpoints.retire(job.accountId, job.livemode, endpointId, (doc) => {
      if (!doc || doc.state !== "enabled") {
        this.known.delete(endpointId);
        return null;
      }
      const current = doc.failingSince ?? null;
      const since = failingSinceAfter(current, attempts);
      if (since === null) this.known.delete(endpointId);
      else this.known.set(endpointId, since);
      if (failedForTheWindow(since, last, this.deps.config.webhookDisableAfterMs)) return transition({ ...doc, failingSince: since }, "fail");
      return since !== current ? { ...doc, failingSince: since } : null;
    });
    // its items in flight stop sending: the rest of their events go on to an item that finds it disabled
    if (disabled) this.endpoints.changed(endpointId);
  }
}

import { WEBHOOK_DELIVERY, WEBHOOK_FANOUT } from "../../events/delivery-work";
import { defineModule, work } from "../../engine/resource-module";
import { webhookEndpointRoutes } from "./routes";
import { WebhookDeliveriesService, type AttemptOutcome } from "./webhook-deliveries-service";
import type { DeliveryOutcomeKind } from "../../ports/observer";

/** An attempt's outcome as the observer port names it. */
function deliveryOutcome(outcome: AttemptOutcome): DeliveryOutcomeKind {
  if (outcome.status === "succeeded") return "succeeded";
  if (outcome.gone) return "gone";
  return outcome.responseStatus !== null ? "http_error" : "network_error";
}
import { WebhookEndpointsService } from "./webhook-endpoints-service";

/**
 * Webhook endpoints, their signed at-least-once deliveries, the delivery log and replay.
 * Fan-out items run in the default lane; attempts run in a lane of their own, grouped by
 * endpoint, so receivers that hang for the full timeout hold only their own endpoint's slots and
 * never the engine's other work. One attempt: read and sign (one short transaction), POST outside
 * any transaction, then record the outcome and settle the item (one transaction). A worker that
 * dies in between leaves a lease that expires; the next worker sends the attempt again (at least
 * once) under the next attempt number.
 */
export const webhooksModule = defineModule({
  name: "webhook_endpoints",
  routes: webhookEndpointRoutes,
  setup: ({ deps, worker }) => {
    const webhookEndpoints = new WebhookEndpointsService(deps);
    const webhookDeliveries = new WebhookDeliveriesService(deps, webhookEndpoints);
    return {
      services: { webhookEndpoints, webhookDeliveries },
      work: [
        work(WEBHOOK_FANOUT, async (job) => {
          await webhookDeliveries.fanOut(job);
          return { kind: "settled" };
        }),
        work(
          WEBHOOK_DELIVERY,
          async (job) => {
            const prepared = await webhookDeliveries.prepare(job);
            if (!prepared) return { kind: "done" };
            const result = await deps.delivery.send(prepared.request);
            const outcome = await webhookDeliveries.record(job, prepared, result);
            deps.observer.deliveryAttempted({
              endpoint: prepared.endpointId,
              eventType: prepared.event.type,
              outcome: deliveryOutcome(outcome),
              responseStatus: outcome.responseStatus,
              latencyMs: result.latencyMs,
              attempt: prepared.attempt,
            });
            return { kind: "settled" };
          },
          {
            concurrency: deps.config.webhookConcurrency,
            groupLimit: deps.config.webhookEndpointConcurrency,
            // the lease outlasts the attempt's timeout by half a minute of database work
            leaseMs: Math.max(worker.leaseMs, deps.config.webhookTimeoutMs + 30_000),
          },
        ),
      ],
    };
  },
});

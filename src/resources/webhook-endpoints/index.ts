import { WEBHOOK_DELIVERY, WEBHOOK_FANOUT } from "../../events/delivery-work";
import { defineModule, operations, work } from "../../engine/module";
import { webhookEndpointRoutes } from "./routes";
import { FAN_OUTS_AT_ONCE, RECORD_MARGIN_MS, WebhookDeliveriesService } from "./webhook-deliveries-service";
import { WebhookEndpointsService } from "./webhook-endpoints-service";

export type { WebhookDeliveryObject, WebhookReplayObject } from "./webhook-deliveries-service";
export type {
  CreateWebhookEndpointInput,
  ListDeliveriesParams,
  ListWebhookEndpointsParams,
  ReplayInput,
  UpdateWebhookEndpointInput,
} from "./webhook-endpoint-schemas";
export type { DeletedWebhookEndpoint, WebhookEndpointObject } from "./webhook-endpoints-service";
export type { WebhooksApi } from "./routes";

/**
 * Webhook endpoints, their signed at-least-once deliveries, the delivery log and replay.
 * Fan-out items run in the default lane; delivery items run in a lane of their own, grouped by
 * endpoint, so receivers that hang for the full timeout hold only their own endpoint's slots and
 * never the engine's other work. An item is one slot: read (one short transaction shared with
 * the items that start with it), then its events POSTed one after the other outside any
 * transaction, each signed afresh, then every outcome recorded and the item settled (one
 * transaction). A worker that dies in between leaves a lease that expires; the next worker sends
 * the item's events again (at least once) under the next attempt number.
 */
export const webhooksModule = defineModule({
  name: "webhook_endpoints",
  ids: { we: "webhook endpoint", dlv: "webhook delivery" },
  scopes: ["webhook_endpoints"],
  tags: [{ name: "Webhook endpoints", description: "Receivers of signed events, their delivery log and replays" }],
  routes: webhookEndpointRoutes,
  setup: ({ deps, worker }) => {
    const webhookEndpoints = new WebhookEndpointsService(deps);
    // the lease outlasts an attempt's timeout by the time its record may take
    const leaseMs = Math.max(worker.leaseMs, deps.config.webhookTimeoutMs + RECORD_MARGIN_MS);
    const webhookDeliveries = new WebhookDeliveriesService(deps, webhookEndpoints, { leaseMs });
    return {
      api: {
        webhookEndpoints: operations(webhookEndpoints, ["create", "retrieve", "list", "update", "del", "rotateSecret"]),
        webhookDeliveries: operations(webhookDeliveries, ["list", "replay"]),
      },
      // the delivery stages, for tests that drive them one step at a time
      provides: { webhookEndpoints, webhookDeliveries },
      work: [
        work(
          WEBHOOK_FANOUT,
          async (job) => {
            await webhookDeliveries.fanOut(job);
            return { kind: "settled" };
          },
          { concurrency: FAN_OUTS_AT_ONCE },
        ),
        work(WEBHOOK_DELIVERY, (job) => webhookDeliveries.deliver(job), {
          // one item sends one attempt at a time: items in flight are attempts in flight
          concurrency: deps.config.webhookConcurrency,
          groupLimit: deps.config.webhookEndpointConcurrency,
          leaseMs,
          // an item holds its slot for many attempts, then mostly hands it on: refill at once
          refillAt: 1,
        }),
      ],
    };
  },
});

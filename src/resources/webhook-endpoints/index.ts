import { defineModule, operations } from "../../engine/module";
import { deliveryWork } from "./delivery-handlers";
import { webhookEndpointRoutes } from "./routes";
import { WEBHOOK_ENDPOINT_EVENTS } from "./webhook-endpoint-events";
import { WebhookDeliveriesService } from "./webhook-deliveries-service";
import { WebhookEndpointsService } from "./webhook-endpoints-service";
import { WebhookResendService } from "./webhook-resend-service";

export type { WebhookDeliveryObject, WebhookReplayObject } from "./webhook-deliveries-service";
export type { WebhookRecoveryObject, WebhookResendObject } from "./webhook-resend-service";
export type {
  CreateWebhookEndpointInput,
  ListDeliveriesParams,
  ListWebhookEndpointsParams,
  RecoverInput,
  ReplayInput,
  RotateSecretInput,
  ResendInput,
  UpdateWebhookEndpointInput,
} from "./webhook-endpoint-schemas";
export type { DeletedWebhookEndpoint, WebhookEndpointObject } from "./webhook-endpoint-doc";
export type { WebhooksApi } from "./routes";

/**
 * Webhook endpoints, their signed at-least-once deliveries, the delivery log, replay, resend
 * and recover; endpoints that keep failing are disabled (`endpoint-health.ts`).
 * Fan-out items run in a lane of their own; delivery items run in another, grouped by
 * endpoint, so receivers that hang for the full timeout hold only their own endpoint's slots and
 * never the engine's other work. An item is one slot: read (one short transaction shared with
 * the items that start with it), then its events POSTed one after the other outside any
 * transaction, each signed afresh, then every outcome recorded and the item settled (one
 * transaction). A worker that dies in between leaves a lease that expires; the next worker sends
 * the item's events again (at least once) under the next attempt number. The stages are due-work
 * handlers (`delivery-handlers.ts`), not members of the engine.
 */
export const webhooksModule = defineModule({
  name: "webhook_endpoints",
  ids: { we: "webhook endpoint", dlv: "webhook delivery" },
  scopes: ["webhook_endpoints"],
  tags: [{ name: "Webhook endpoints", description: "Receivers of signed events, their delivery log and replays" }],
  events: WEBHOOK_ENDPOINT_EVENTS,
  routes: webhookEndpointRoutes,
  setup: ({ deps, worker }) => {
    const webhookEndpoints = new WebhookEndpointsService(deps);
    const webhookDeliveries = new WebhookDeliveriesService(deps, webhookEndpoints);
    const webhookResends = new WebhookResendService(deps, webhookEndpoints);
    return {
      api: {
        webhookEndpoints: operations(webhookEndpoints, ["create", "retrieve", "list", "update", "del", "rotateSecret"]),
        webhookDeliveries: operations(webhookDeliveries, ["list", "replay"]),
        webhookResends: operations(webhookResends, ["resend", "recover"]),
      },
      // for tests that mark an endpoint gone by hand
      provides: { webhookEndpoints },
      work: deliveryWork(deps, webhookEndpoints, worker.leaseMs),
    };
  },
});

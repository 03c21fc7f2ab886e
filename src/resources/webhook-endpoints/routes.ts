import {
  DeletedWebhookEndpointSchema,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookRecovery,
  WebhookReplay,
  WebhookResend,
} from "./webhook-endpoint-objects";
import type { RouteDefinition } from "../../engine/route";
import {
  createEndpointSchema,
  listDeliveriesSchema,
  listEndpointsSchema,
  recoverSchema,
  replaySchema,
  resendSchema,
  rotateSecretSchema,
  updateEndpointSchema,
} from "./webhook-endpoint-schemas";
import type { WebhookEndpointsService } from "./webhook-endpoints-service";
import type { WebhookDeliveriesService } from "./webhook-deliveries-service";
import type { WebhookResendService } from "./webhook-resend-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface WebhooksApi {
  webhookEndpoints: Pick<WebhookEndpointsService, "create" | "retrieve" | "list" | "update" | "del" | "rotateSecret">;
  webhookDeliveries: Pick<WebhookDeliveriesService, "list" | "replay">;
  webhookResends: Pick<WebhookResendService, "resend" | "recover">;
}

export const webhookEndpointRoutes: RouteDefinition<WebhooksApi>[] = [
  {
    method: "post",
    path: "/v1/webhook_endpoints",
    summary: "Register a webhook endpoint; its signing secret is returned this once",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:write",
    body: createEndpointSchema,
    returns: WebhookEndpoint,
    handler: ({ api, ctx, body }) => api.webhookEndpoints.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/webhook_endpoints",
    summary: "List webhook endpoints, newest first",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:read",
    query: listEndpointsSchema,
    returns: WebhookEndpointList,
    handler: ({ api, ctx, query }) => api.webhookEndpoints.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/webhook_endpoints/:id",
    summary: "Retrieve a webhook endpoint",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:read",
    returns: WebhookEndpoint,
    handler: ({ api, ctx, params }) => api.webhookEndpoints.retrieve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/webhook_endpoints/:id",
    summary: "Update a webhook endpoint's URL, events, description or signature scheme, or enable or disable it",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:write",
    body: updateEndpointSchema,
    returns: WebhookEndpoint,
    handler: ({ api, ctx, params, body }) => api.webhookEndpoints.update(ctx, params.id!, body),
  },
  {
    method: "delete",
    path: "/v1/webhook_endpoints/:id",
    summary: "Delete a webhook endpoint",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:write",
    returns: DeletedWebhookEndpointSchema,
    handler: ({ api, ctx, params }) => api.webhookEndpoints.del(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/webhook_endpoints/:id/rotate_secret",
    summary: "Issue a new signing secret, or set your own (returned this once); the old one keeps signing for expire_previous_in seconds (default 24 hours)",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:write",
    body: rotateSecretSchema,
    returns: WebhookEndpoint,
    handler: ({ api, ctx, params, body }) => api.webhookEndpoints.rotateSecret(ctx, params.id!, body),
  },
  {
    method: "get",
    path: "/v1/webhook_endpoints/:id/deliveries",
    summary: "List the endpoint's delivery attempts of the last 7 days, newest first",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:read",
    query: listDeliveriesSchema,
    returns: WebhookDeliveryList,
    handler: ({ api, ctx, params, query }) => api.webhookDeliveries.list(ctx, params.id!, query),
  },
  {
    method: "post",
    path: "/v1/webhook_endpoints/:id/replay",
    summary: "Re-send the events of a window (at most 7 days back) with their original ids",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:write",
    body: replaySchema,
    successStatus: 202,
    returns: WebhookReplay,
    handler: ({ api, ctx, params, body }) => api.webhookDeliveries.replay(ctx, params.id!, body),
  },
  {
    method: "post",
    path: "/v1/webhook_endpoints/:id/recover",
    summary: "Re-send the events whose deliveries to the endpoint failed since a moment (at most 7 days back)",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:write",
    body: recoverSchema,
    successStatus: 202,
    returns: WebhookRecovery,
    handler: ({ api, ctx, params, body }) => api.webhookResends.recover(ctx, params.id!, body),
  },
  {
    method: "post",
    path: "/v1/events/:id/resend",
    summary: "Send one event again to one endpoint (logged with trigger manual)",
    tag: "Webhook endpoints",
    scope: "webhook_endpoints:write",
    body: resendSchema,
    successStatus: 202,
    returns: WebhookResend,
    handler: ({ api, ctx, params, body }) => api.webhookResends.resend(ctx, params.id!, body),
  },
];

import { eventType, listOf } from "../../api/common-objects";
import { o } from "../../api/response-schema";
import { Event } from "../../events/event-object";
import { metadataObject } from "../../metadata/metadata";
import { SIGNATURE_SCHEMES } from "../../events/signature-schemes";
import { headersObject } from "./endpoint-headers";
import { DISABLED_REASONS, ENDPOINT_STATUSES } from "./webhook-endpoint-machine";

export const WebhookEndpoint = o.named(
  "WebhookEndpoint",
  o.object(
    {
      id: o.id("we"),
      object: o.literal("webhook_endpoint"),
      url: o.string({ format: "uri", example: "https://example.com/hooks" }),
      status: o.enum(ENDPOINT_STATUSES),
      disabled_reason: o.nullable(
        o.enum(DISABLED_REASONS, {
          description: "manual: by its owner; failing: every delivery failed for the disable window (5 days by default); gone: the receiver answered 410",
        }),
      ),
      enabled_events: o.array(o.anyOf(eventType(), o.literal("*")), { description: "Event types sent to the endpoint; `*`: all" }),
      signature_scheme: o.enum(SIGNATURE_SCHEMES, {
        description:
          "How deliveries are signed: `stripe` (`Service-Signature: t=…,v1=…`, Stripe's scheme) or `standard` (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`)",
      }),
      description: o.nullable(o.string()),
      livemode: o.boolean(),
      metadata: metadataObject,
      headers: headersObject,
      created: o.time(),
      secret: o.optional(
        o.string({
          pattern: "^whsec_[A-Za-z0-9+/=_-]{24,128}$",
          description:
            "The signing secret: in the answers to create and rotate_secret only, never in a replayed answer. " +
            "For `standard`, the base64 after `whsec_` is the key (Standard Webhooks); for `stripe`, the whole string",
          example: "whsec_q3Kf0o8yJc2sWnX1vTzP5mR7bL9dA4eH6gU0iKjYxQw",
        }),
      ),
    },
    { description: "A receiver of signed webhook events" },
  ),
);

export const DeletedWebhookEndpointSchema = o.named(
  "DeletedWebhookEndpoint",
  o.object({ id: o.id("we"), object: o.literal("webhook_endpoint"), deleted: o.true() }),
);

export const WebhookDelivery = o.named(
  "WebhookDelivery",
  o.object(
    {
      id: o.id("dlv"),
      object: o.literal("webhook_delivery"),
      endpoint: o.id("we"),
      event: o.anyOf(o.id("evt"), Event, { description: "The event's id; the event with `expand[]=data.event`" }),
      event_type: eventType(),
      attempt: o.integer({ minimum: 1 }),
      trigger: o.enum(["scheduled", "replay", "manual"] as const),
      status: o.enum(["succeeded", "failed"] as const),
      response_status: o.nullable(o.integer({ description: "The receiver's HTTP status; null when none came (timeout, refused, reset)" })),
      latency_ms: o.integer({ minimum: 0 }),
      error: o.nullable(o.string({ example: "HTTP 500" })),
      created: o.time(),
      next_attempt_at: o.nullable(o.time()),
    },
    { description: "One attempt to deliver an event to an endpoint, kept 7 days" },
  ),
);

export const WebhookReplay = o.named(
  "WebhookReplay",
  o.object(
    { object: o.literal("webhook_replay"), endpoint: o.id("we"), from: o.time(), to: o.time(), event_count: o.integer({ minimum: 0 }) },
    { description: "Events of a window queued again for one endpoint" },
  ),
);

export const WebhookResend = o.named(
  "WebhookResend",
  o.object(
    { object: o.literal("webhook_resend"), event: o.id("evt"), endpoint: o.id("we") },
    { description: "One event queued again for one endpoint (its attempts are logged with trigger manual)" },
  ),
);

export const WebhookRecovery = o.named(
  "WebhookRecovery",
  o.object(
    { object: o.literal("webhook_recovery"), endpoint: o.id("we"), since: o.time(), event_count: o.integer({ minimum: 0 }) },
    { description: "The events whose deliveries to one endpoint failed since a moment, queued again for it" },
  ),
);

export const WebhookEndpointList = listOf("WebhookEndpoint", WebhookEndpoint);
export const WebhookDeliveryList = listOf("WebhookDelivery", WebhookDelivery);

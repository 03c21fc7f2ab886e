import { eventType, listOf } from "../../api/common-objects";
import { o } from "../../api/response-schema";
import { Event } from "../../events/event-object";
import { metadataObject } from "../../metadata/metadata";
import { DISABLED_REASONS, ENDPOINT_STATUSES } from "./webhook-endpoint-machine";

export const WebhookEndpoint = o.named(
  "WebhookEndpoint",
  o.object(
    {
      id: o.id("we"),
      object: o.literal("webhook_endpoint"),
      url: o.string({ format: "uri", example: "https://example.com/hooks" }),
      status: o.enum(ENDPOINT_STATUSES),
      disabled_reason: o.nullable(o.enum(DISABLED_REASONS, { description: "gone: the receiver answered 410" })),
      enabled_events: o.array(o.anyOf(eventType(), o.literal("*")), { description: "Event types sent to the endpoint; `*`: all" }),
      description: o.nullable(o.string()),
      livemode: o.boolean(),
      metadata: metadataObject,
      rate_limit: o.nullable(o.integer({ minimum: 1, description: "Deliveries per second at most; null: no limit" })),
      created: o.time(),
      secret: o.optional(
        o.string({
          pattern: "^whsec_[A-Za-z0-9_-]{43}$",
          description: "The signing secret: in the answers to create and rotate_secret only, never in a replayed answer",
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

export const WebhookEndpointList = listOf("WebhookEndpoint", WebhookEndpoint);
export const WebhookDeliveryList = listOf("WebhookDelivery", WebhookDelivery);

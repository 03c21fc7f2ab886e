import type { NamedSchema } from "../../src/api/response-schema";
import type { EngineCatalogue } from "../../src/engine/catalogue";
import { typedEventName, typedEventSchema } from "../../src/events/event-types";

/** The tag of the document's webhook entries. */
export const WEBHOOKS_TAG = { name: "Webhook events", description: "What a webhook endpoint receives: one signed POST per event" };

/** The headers of every delivery (docs/decisions.md §6, §11), as parameters of the webhook entries. */
const HEADERS: Record<string, { name: string; required: boolean; description: string; pattern: string }> = {
  WebhookServiceEvent: { name: "Service-Event", required: true, description: "The event's type", pattern: "^[a-z_]+(\\.[a-z_]+)+$" },
  WebhookServiceDelivery: {
    name: "Service-Delivery",
    required: true,
    description: "This attempt's id in the endpoint's delivery log",
    pattern: "^dlv_[0-9a-z]{26}$",
  },
  WebhookServiceAttempt: { name: "Service-Attempt", required: true, description: "1 for the first attempt, then 2, 3, …", pattern: "^[1-9][0-9]*$" },
  WebhookServiceSignature: {
    name: "Service-Signature",
    required: false,
    description: "Endpoints with `signature_scheme: stripe`: `t=<unix seconds>,v1=<hex HMAC-SHA256>` (Stripe's scheme)",
    pattern: "^t=[0-9]+(,v1=[0-9a-f]{64})+$",
  },
  WebhookId: {
    name: "webhook-id",
    required: false,
    description: "Endpoints with `signature_scheme: standard` (Standard Webhooks): the event's id, the same on every attempt",
    pattern: "^evt_[0-9a-z]{26}$",
  },
  WebhookTimestamp: { name: "webhook-timestamp", required: false, description: "Standard Webhooks: Unix seconds of the signature", pattern: "^[0-9]+$" },
  WebhookSignature: {
    name: "webhook-signature",
    required: false,
    description: "Standard Webhooks: `v1,<base64 HMAC-SHA256>` per signing secret, space-separated",
    pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$",
  },
};

/**
 * The document's `webhooks` (OpenAPI 3.1): one entry per event type of the catalogue, named by
 * the type, whose request body is the typed event (`<Type>Event`: `type` fixed, `data.object`
 * the type's object) and whose parameters are the delivery's headers. The same definitions
 * `GET /v1/event_types` answers from (`src/events/event-types.ts`).
 */
export function openApiWebhooks(catalogue: EngineCatalogue): {
  webhooks: Record<string, unknown>;
  schemas: NamedSchema<unknown>[];
  parameters: Record<string, unknown>;
} {
  const webhooks: Record<string, unknown> = {};
  const schemas: NamedSchema<unknown>[] = [];
  for (const type of [...catalogue.eventTypes].sort()) {
    const typed = typedEventSchema(catalogue.event(type)!);
    schemas.push(typed);
    webhooks[type] = {
      post: {
        operationId: `webhook${typedEventName(type).replace(/Event$/, "")}`,
        summary: type,
        description: `${catalogue.event(type)!.description}. Signed per the endpoint's \`signature_scheme\`; answer 2xx within 10 seconds.`,
        tags: [WEBHOOKS_TAG.name],
        security: [],
        parameters: Object.keys(HEADERS).map((name) => ({ $ref: `#/components/parameters/${name}` })),
        requestBody: { required: true, content: { "application/json": { schema: typed.json } } },
        responses: {
          "200": { description: "Any 2xx acknowledges the event; anything else (or no answer in 10 seconds) is retried" },
          "410": { description: "Gone: the endpoint is disabled for good" },
        },
      },
    };
  }
  const parameters: Record<string, unknown> = {};
  for (const [key, h] of Object.entries(HEADERS)) {
    parameters[key] = { name: h.name, in: "header", required: h.required, description: h.description, schema: { type: "string", pattern: h.pattern } };
  }
  return { webhooks, schemas, parameters };
}

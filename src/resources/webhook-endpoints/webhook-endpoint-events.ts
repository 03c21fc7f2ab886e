import { defineEvent, type SampleContext } from "../../engine/module";
import type { WebhookEndpointState } from "./webhook-endpoint-machine";
import { WebhookEndpoint } from "./webhook-endpoint-objects";
import { presentEndpoint } from "./webhook-endpoint-doc";

function sampleEndpoint({ ids, now }: SampleContext, state: WebhookEndpointState = "enabled") {
  return presentEndpoint({
    id: ids.next("we"),
    state,
    url: "https://example.com/hooks",
    enabledEvents: ["payout.settled", "payout.failed"],
    description: "Settlement notices",
    livemode: false,
    created: now,
    secrets: [],
  });
}

/** Changes to where the account's events go: each is also a record of the audit log. Never carries a secret. */
export const WEBHOOK_ENDPOINT_EVENTS = [
  defineEvent({
    type: "webhook_endpoint.created",
    description: "A webhook endpoint was registered",
    object: WebhookEndpoint,
    namedOnly: true,
    sample: (ctx) => sampleEndpoint(ctx),
  }),
  defineEvent({
    type: "webhook_endpoint.updated",
    description: "A webhook endpoint's URL, events, description, signature scheme or status changed (the audit record says what)",
    object: WebhookEndpoint,
    namedOnly: true,
    sample: (ctx) => sampleEndpoint(ctx),
  }),
  defineEvent({
    type: "webhook_endpoint.secret_rotated",
    description: "A webhook endpoint's signing secret was rotated (the event never carries a secret)",
    object: WebhookEndpoint,
    namedOnly: true,
    sample: (ctx) => sampleEndpoint(ctx),
  }),
  defineEvent({
    type: "webhook_endpoint.disabled",
    description:
      "A webhook endpoint was disabled: by hand (`disabled_reason: manual`), after every delivery to it failed for the disable window (`failing`), or after it answered 410 (`gone`)",
    object: WebhookEndpoint,
    namedOnly: true,
    sample: (ctx) => sampleEndpoint(ctx, "gone"),
  }),
  defineEvent({
    type: "webhook_endpoint.deleted",
    description: "A webhook endpoint was deleted; the object is the endpoint as it was",
    object: WebhookEndpoint,
    namedOnly: true,
    sample: (ctx) => sampleEndpoint(ctx),
  }),
] as const;

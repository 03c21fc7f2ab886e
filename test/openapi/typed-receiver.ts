import { Webhook } from "standardwebhooks";
import type { webhooks } from "./.generated/api";

/**
 * A webhook receiver typed from the OpenAPI document's `webhooks` section (openapi-typescript):
 * the body of each entry is the event of that type, so a `switch` on `type` narrows `data.object`
 * to the type's object. `test/adapters/http/openapi-contract.test.ts` compiles it under
 * `tsc --strict` and feeds it real deliveries; the `@ts-expect-error` lines prove the narrowing
 * (each fails to compile if its line type-checks).
 */
type Delivered<K extends keyof webhooks> = webhooks[K]["post"]["requestBody"]["content"]["application/json"];

/** Any event a webhook endpoint can receive. */
export type WebhookEvent = { [K in keyof webhooks]: Delivered<K> }[keyof webhooks];

export function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case "payout.settled": {
      const payout = event.data.object;
      const amount: string = payout.amount;
      const legs: number = payout.legs.length;
      // @ts-expect-error a payout is not a swap: it has no `from`
      void payout.from;
      return `payout ${payout.status} ${amount} ${payout.asset} in ${legs} leg(s)`;
    }
    case "swap.settled": {
      const swap = event.data.object;
      // @ts-expect-error amounts are decimal strings, never numbers
      const asNumber: number = swap.from.amount;
      void asNumber;
      return `swap ${swap.status} ${swap.from.amount} ${swap.from.asset} to ${swap.to.asset}`;
    }
    case "balance.updated":
      return `balance ${event.data.object.asset} available ${event.data.object.available}`;
    default: {
      // @ts-expect-error an event type that is not in the catalogue
      const unknown: WebhookEvent["type"] = "payout.exploded";
      void unknown;
      return `${event.type} ${event.id}`;
    }
  }
}

/** What a Standard Webhooks receiver does: verify the raw body, then read the typed event. */
export function receive(rawBody: string, headers: Record<string, string>, secret: string): string {
  new Webhook(secret).verify(rawBody, headers);
  const event: WebhookEvent = JSON.parse(rawBody);
  return describeEvent(event);
}

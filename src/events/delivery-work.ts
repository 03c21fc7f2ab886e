import type { Json } from "../ports/storage";

/**
 * The due work that carries events to webhook endpoints. Every transaction that emits events
 * schedules one fan-out item per account in that same transaction (so no event is ever missed,
 * however late its transaction commits); the fan-out turns it into one delivery item per
 * subscribed endpoint, grouped by endpoint so a slow receiver only ever holds its own slots.
 */
export const WEBHOOK_FANOUT_KIND = "webhook.fanout";
export const WEBHOOK_DELIVERY_KIND = "webhook.deliver";

export interface FanoutPayload {
  events: { id: string; type: string }[];
}

/** What started a delivery: an event as it happened, a replay, or a manual resend. */
export type DeliveryTrigger = "scheduled" | "replay" | "manual";

export interface DeliveryPayload {
  endpoint: string;
  event: string;
  trigger: DeliveryTrigger;
}

export function fanoutPayload(events: { id: string; type: string }[]): Json {
  return { events: events.map(({ id, type }) => ({ id, type })) } satisfies FanoutPayload;
}

import { s, type Infer } from "../validation/schema";
import { defineWork } from "../workers/due-work";

/**
 * The due work that carries events to webhook endpoints. Every transaction that emits events
 * schedules one fan-out item per account in that same transaction (so no event is ever missed,
 * however late its transaction commits); the fan-out turns it into one delivery item per
 * subscribed endpoint, grouped by endpoint so a slow receiver only ever holds its own slots.
 */
const TRIGGERS = ["scheduled", "replay", "manual"] as const;

/** What started a delivery: an event as it happened, a replay, or a manual resend. */
export type DeliveryTrigger = (typeof TRIGGERS)[number];

/** One item per account per transaction that emitted events: turned into one delivery per subscribed endpoint. */
export const WEBHOOK_FANOUT = defineWork(
  "webhook.fanout",
  s.object({ events: s.array(s.object({ id: s.string({ min: 1 }), type: s.string({ min: 1 }) })) }),
);

/** One attempt (and its retries) of one event to one endpoint, grouped by endpoint. */
export const WEBHOOK_DELIVERY = defineWork(
  "webhook.deliver",
  s.object({ endpoint: s.string({ min: 1 }), event: s.string({ min: 1 }), trigger: s.enum(TRIGGERS) }),
);

export type FanoutPayload = Infer<typeof WEBHOOK_FANOUT.payload>;
export type DeliveryPayload = Infer<typeof WEBHOOK_DELIVERY.payload>;

export function fanoutPayload(events: readonly { id: string; type: string }[]): FanoutPayload {
  return { events: events.map(({ id, type }) => ({ id, type })) };
}

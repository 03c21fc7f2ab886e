import { s, type Infer } from "../validation/schema";
import { defineWork } from "../workers/due-work";

/**
 * The due work that carries events to webhook endpoints. Every transaction that emits events
 * schedules one fan-out item per account in that same transaction (so no event is ever missed,
 * however late its transaction commits); the fan-out turns it into delivery items per subscribed
 * endpoint, each carrying up to `EVENTS_PER_DELIVERY` of the transaction's events, grouped by
 * endpoint so a slow receiver only ever holds its own slots.
 */
const TRIGGERS = ["scheduled", "replay", "manual"] as const;

/** What started a delivery: an event as it happened, a replay, or a manual resend. */
export type DeliveryTrigger = (typeof TRIGGERS)[number];

/**
 * Events one delivery item carries at most. An item is one of its endpoint's slots: it sends its
 * events one after the other, so the group limit on items is the limit on attempts in flight.
 * Bigger items share one claim, one read and one record among more attempts; smaller ones
 * spread one transaction's events over more of the endpoint's slots, which a slow receiver's
 * burst needs. `npm run bench webhooks` (100 events per transaction): 32 about 15 % slower than
 * 64, 100 about 10 % faster; 64 keeps a 100-event burst on two slots, and an item's record on
 * embedded storage short.
 */
export const EVENTS_PER_DELIVERY = 64;

/** One item per account per transaction that emitted events: turned into delivery items per subscribed endpoint. */
export const WEBHOOK_FANOUT = defineWork("webhook.fanout", s.object({ events: s.array(s.object({ id: s.string({ min: 1 }), type: s.string({ min: 1 }) })) }));

/**
 * Attempts of some events to one endpoint, sent one after the other, grouped by endpoint. Each
 * event's attempt number is `attempt` plus the item's earlier claims (a claim whose worker died
 * counts: its number may have reached the receiver, so it is never reused). A failed event goes
 * on alone, in an item of its own due at its next slot.
 *
 * Items stored before deliveries were batched carry one `event` and neither `attempt` nor
 * `first`; they still run, as an item of that one event.
 */
export const WEBHOOK_DELIVERY = defineWork(
  "webhook.deliver",
  s.object({
    endpoint: s.string({ min: 1 }),
    trigger: s.enum(TRIGGERS),
    /** The events, oldest first. */
    events: s.array(s.string({ min: 1 }), { min: 1 }).optional(),
    /** Shape 1: the one event of the item. */
    event: s.string({ min: 1 }).optional(),
    /** The attempt number of the item's first claim (default 1). */
    attempt: s.integer({ min: 1 }).optional(),
    /** When the events were first scheduled to this endpoint: their 24 hours run from there (default the item's `created`). */
    first: s.integer({ min: 0 }).optional(),
  }),
);

export type FanoutPayload = Infer<typeof WEBHOOK_FANOUT.payload>;
export type DeliveryPayload = Infer<typeof WEBHOOK_DELIVERY.payload>;

export function fanoutPayload(events: readonly { id: string; type: string }[]): FanoutPayload {
  return { events: events.map(({ id, type }) => ({ id, type })) };
}

/** `ids` in runs of at most `EVENTS_PER_DELIVERY`, as even as they divide, order kept. */
export function deliveryChunks<T>(ids: readonly T[]): T[][] {
  const chunks = Math.ceil(ids.length / EVENTS_PER_DELIVERY);
  const out: T[][] = [];
  for (let i = 0; i < chunks; i++) out.push(ids.slice(Math.floor((i * ids.length) / chunks), Math.floor(((i + 1) * ids.length) / chunks)));
  return out;
}

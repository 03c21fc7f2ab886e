/**
 * The event catalogue of the seed, plus `report.ready` and `report.failed` (reports are built
 * asynchronously): every type the engine emits, and nothing else.
 */
export const EVENT_TYPES = [
  "payment_intent.processing",
  "payment_intent.succeeded",
  "payment_intent.partially_paid",
  "payment_intent.expired",
  "payment_intent.reverted",
  "payment_intent.unsupported_chain",
  "payout.created",
  "payout.leg.broadcast",
  "payout.settled",
  "payout.partially_settled",
  "payout.failed",
  "payout.batch.completed",
  "swap.executing",
  "swap.settled",
  "swap.failed",
  "limit_order.working",
  "limit_order.partially_filled",
  "limit_order.filled",
  "limit_order.canceled",
  "balance.updated",
  "recipient.screening_updated",
  "report.ready",
  "report.failed",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN = new Set<string>(EVENT_TYPES);

export function isEventType(value: unknown): value is EventType {
  return typeof value === "string" && KNOWN.has(value);
}

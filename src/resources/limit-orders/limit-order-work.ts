import { s } from "../../validation/schema";
import { defineWork } from "../../workers/due-work";

const orderId = s.object({ order: s.string({ min: 1 }) });
/** One matching step of an open order; it reschedules itself while the order is open. */
export const LIMIT_ORDER_MATCH = defineWork("limit_order.match", orderId);
/** At `expires_at` + 1 ms: cancels what is still open. */
export const LIMIT_ORDER_EXPIRE = defineWork("limit_order.expire", orderId);

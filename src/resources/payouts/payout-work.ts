import { s } from "../../validation/schema";
import { defineWork } from "../../workers/due-work";

const payoutIds = s.object({ payouts: s.array(s.string({ min: 1 }), { min: 1 }) });

/** Sends the pending legs of these payouts (one payout, or a chunk of a batch). */
export const PAYOUT_BROADCAST = defineWork("payouts.broadcast", payoutIds);

/** Follows these payouts' broadcast legs to finality; reschedules itself until none is in flight. */
export const PAYOUT_TRACK = defineWork("payouts.track", payoutIds);

import { listPaths } from "../../lists/expansion";
import { PAYMENT_INTENT_EXPAND_PATHS } from "./payment-intent-expansions";
import { listParamsShape, searchParamShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";
import { PAYMENT_INTENT_STATUSES } from "./payment-intent-machine";
import { metadataParam } from "../../metadata/metadata";

/** Request schemas of payment intents: validation, the typed inputs below, and the OpenAPI document. */

/** docs/decisions.md §4: expires_in defaults to an hour; bounds follow limit orders' (60 s to 30 days). */
export const DEFAULT_EXPIRES_IN = 3_600;

export const createPaymentIntentSchema = s.object({
  metadata: metadataParam().optional(),
  amount: s.amount(),
  asset: s.asset(),
  chains: s
    .array(s.string({ min: 1, max: 32 }), { min: 1, max: 16 })
    .optional()
    .describe("Default: every chain of the asset"),
  reference: s.string({ min: 1, max: 255 }).optional(),
  expires_in: s.integer({ min: 60, max: 2_592_000 }).optional().describe("Seconds, default 3600"),
  tolerance: s.decimal().optional().describe('Fraction of the amount a payment may fall short by, "0" to below "1"; default "0"'),
});

export const updatePaymentIntentSchema = s.object({
  metadata: metadataParam().optional().describe('Keys to set; a key set to "" is removed, others are kept'),
});

export const retrievePaymentIntentSchema = s.object({
  expand: s.expand(PAYMENT_INTENT_EXPAND_PATHS).optional().describe("Replace ids with objects: settlements, ledger_entries, settlements.payment_intent"),
});

export const listPaymentIntentsSchema = s.object({
  ...listParamsShape,
  ...searchParamShape,
  status: s.enum(PAYMENT_INTENT_STATUSES).optional(),
  expand: s
    .expand(listPaths(PAYMENT_INTENT_EXPAND_PATHS))
    .optional()
    .describe("Replace ids with objects in every payment intent: data.settlements, data.ledger_entries, data.settlements.payment_intent"),
});

export type CreatePaymentIntentInput = Input<typeof createPaymentIntentSchema>;
export type UpdatePaymentIntentInput = Input<typeof updatePaymentIntentSchema>;
export type RetrievePaymentIntentParams = Input<typeof retrievePaymentIntentSchema>;
export type ListPaymentIntentsParams = Input<typeof listPaymentIntentsSchema>;

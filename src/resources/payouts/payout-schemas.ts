import { listPaths } from "../../lists/expansion";
import { listParamsShape, searchParamShape } from "../../lists/list-params";
import { PAYOUT_EXPAND_PATHS } from "./payout-expansions";
import { s, type Input } from "../../validation/schema";
import { PAYOUT_STATUSES } from "./payout-machine";
import { BATCH_STATUSES } from "./batch-machine";
import { metadataParam } from "../../metadata/metadata";

/** Request schemas of payouts and batches: validation, the typed inputs below, and the OpenAPI document. */

export const routingSchema = s.object({
  prefer_chains: s
    .array(s.string({ min: 1, max: 32 }), { max: 16 })
    .optional()
    .describe("Soft preference, tried first"),
  max_network_fee: s.amount().optional().describe("Most to pay in network fees, in the payout asset"),
});

export const createPayoutSchema = s.object({
  amount: s.amount(),
  asset: s.asset(),
  recipient: s.string({ min: 1, max: 64 }),
  reference: s.string({ min: 1, max: 255 }).optional(),
  routing: routingSchema.optional(),
  metadata: metadataParam().optional(),
});

export const updatePayoutSchema = s.object({
  metadata: metadataParam().optional().describe('Keys to set; a key set to "" is removed, others are kept'),
});

export const retrievePayoutSchema = s.object({
  expand: s.expand(PAYOUT_EXPAND_PATHS).optional().describe("Replace ids with objects: recipient, batch, ledger_entries"),
});

export const listPayoutsSchema = s.object({
  ...listParamsShape,
  ...searchParamShape,
  status: s.enum(PAYOUT_STATUSES).optional(),
  expand: s
    .expand(listPaths(PAYOUT_EXPAND_PATHS))
    .optional()
    .describe("Replace ids with objects in every payout: data.recipient, data.batch, data.ledger_entries"),
});

/** The seed's limits: 25,000 legs per batch. */
export const MAX_BATCH_LEGS = 25_000;

export const batchLegSchema = s.object({
  row: s.integer({ min: 0, max: MAX_BATCH_LEGS - 1 }).describe("Position of the leg, starting at 0"),
  amount: s.amount(),
  recipient: s.string({ min: 1, max: 64 }),
  reference: s.string({ min: 1, max: 255 }).optional(),
  metadata: metadataParam().optional().describe("The metadata of the leg's payout"),
});

export const batchHeadSchema = s.object({
  reference: s.string({ min: 1, max: 255 }).optional(),
  metadata: metadataParam().optional().describe("The batch's own metadata (its payouts take their leg's)"),
  funding: s.object({ asset: s.asset(), source: s.enum(["auto"] as const) }),
});

/** The whole request, for the OpenAPI document; validation goes row by row (every bad row is listed). */
export const createBatchSchema = s.object({
  ...batchHeadSchema.shape,
  legs: s.array(batchLegSchema, { min: 1, max: MAX_BATCH_LEGS, tooLarge: "batch_too_large" }),
});

const dryRunParam = s.boolean({ coerce: true });

export const batchQuerySchema = s.object({
  dry_run: dryRunParam.optional().describe("Validate without moving value (not counted against the rate limit)"),
});

/** Whether a batch submission's query asks for a dry run (which the rate limit does not count: it moves nothing). */
export function isDryRun(query: { dry_run?: unknown } | undefined): boolean {
  return query?.dry_run !== undefined && dryRunParam.parse(query.dry_run, "dry_run").unwrapOr(false);
}

export const listBatchesSchema = s.object({
  ...listParamsShape,
  ...searchParamShape,
  status: s.enum(BATCH_STATUSES).optional(),
});

export type CreatePayoutInput = Input<typeof createPayoutSchema>;
export type UpdatePayoutInput = Input<typeof updatePayoutSchema>;
export type RetrievePayoutParams = Input<typeof retrievePayoutSchema>;
export type ListPayoutsParams = Input<typeof listPayoutsSchema>;
export type CreateBatchInput = Input<typeof createBatchSchema>;
export type CreateBatchParams = Input<typeof batchQuerySchema>;
export type ListBatchesParams = Input<typeof listBatchesSchema>;

import { listPaths } from "../../lists/expansion";
import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";
import { SWAP_STATUSES } from "./swap-machine";
import { metadataParam } from "../../metadata/metadata";

/** Request schemas of swaps: validation, the typed inputs below, and the OpenAPI document. */

export const createSwapSchema = s.object({
  metadata: metadataParam().optional(),
  quote: s.string({ min: 1, max: 64 }).describe("The quote id (qt_…) this swap consumes"),
  destination_chain: s.chain().describe("Chain the output asset is credited on"),
  refresh: s
    .object({ max_slippage: s.decimal().describe("Largest fall of the rate accepted, a fraction such as 0.005") })
    .optional()
    .describe("Re-quote an expired quote and execute if the new rate is within max_slippage of the old"),
});

/** What `expand[]` replaces in a swap: its quote. */
export const SWAP_EXPAND_PATHS = ["quote"] as const;

export const retrieveSwapSchema = s.object({
  expand: s.expand(SWAP_EXPAND_PATHS).optional().describe("Replace ids with objects: quote"),
});

export const listSwapsSchema = s.object({
  ...listParamsShape,
  status: s.enum(SWAP_STATUSES).optional().describe("Only swaps in this status"),
  expand: s.expand(listPaths(SWAP_EXPAND_PATHS)).optional().describe("Replace ids with objects in every swap: data.quote"),
});

export type CreateSwapInput = Input<typeof createSwapSchema>;
export type ListSwapsParams = Input<typeof listSwapsSchema>;
export type RetrieveSwapParams = Input<typeof retrieveSwapSchema>;

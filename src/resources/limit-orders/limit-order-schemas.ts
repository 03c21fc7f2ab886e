import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";
import { LIMIT_ORDER_STATUSES } from "./limit-order-machine";
import { metadataParam } from "../../metadata/metadata";

/** Request schemas of limit orders: validation, the typed inputs below, and the OpenAPI document. */

/** docs/decisions.md §4: 60 s to 30 days; a day when not given (docs/decisions.md). */
export const EXPIRES_IN = { min: 60, max: 2_592_000, default: 86_400 } as const;

export const createLimitOrderSchema = s.object({
  metadata: metadataParam().optional(),
  from: s.object({ asset: s.asset(), amount: s.amount().describe("Amount of `from.asset` to sell") }),
  to: s.object({ asset: s.asset() }),
  target_rate: s.decimal().describe("Least `to` per `from` (whole units) accepted after all fees, > 0"),
  expires_in: s.integer({ min: EXPIRES_IN.min, max: EXPIRES_IN.max }).optional().describe("Seconds until the order expires, 60 to 2,592,000, default 86,400"),
  partial_fills: s.boolean().optional().describe("true (default) fills in tranches; false is all-or-nothing"),
  max_slippage: s.decimal().optional().describe("Largest price impact of one fill, a fraction such as 0.01"),
  destination_chain: s
    .chain()
    .optional()
    .describe("Chain the output is credited on; default the chain most of the input comes from, if the output lives there"),
});

export const listLimitOrdersSchema = s.object({
  ...listParamsShape,
  status: s.enum(LIMIT_ORDER_STATUSES).optional().describe("Only orders in this status"),
});

export type CreateLimitOrderInput = Input<typeof createLimitOrderSchema>;
export type ListLimitOrdersParams = Input<typeof listLimitOrdersSchema>;

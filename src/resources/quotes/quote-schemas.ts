import { s, type Input } from "../../validation/schema";
import { metadataParam } from "../../metadata/metadata";

/** Request schemas of quotes: validation, the typed inputs below, and the OpenAPI document. */

/** docs/decisions.md §4: a quote lives 5 to 600 seconds, 30 by default. */
export const QUOTE_TTL = { min: 5, max: 600, default: 30 } as const;

export const createQuoteSchema = s.object({
  metadata: metadataParam().optional(),
  from: s.object({ asset: s.asset(), amount: s.amount().describe("Amount of `from.asset` to convert") }),
  to: s.object({ asset: s.asset() }),
  ttl: s.integer({ min: QUOTE_TTL.min, max: QUOTE_TTL.max }).optional().describe("Seconds the quote is usable, 5 to 600, default 30"),
});

export type CreateQuoteInput = Input<typeof createQuoteSchema>;

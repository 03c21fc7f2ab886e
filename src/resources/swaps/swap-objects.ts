import { chain, conversionSide, listOf } from "../../api/common-objects";
import { o } from "../../api/response-schema";
import { Quote } from "../quotes/quote-objects";
import { SWAP_STATUSES } from "./swap-machine";
import { metadataObject } from "../../metadata/metadata";

export const Swap = o.named(
  "Swap",
  o.object(
    {
      id: o.id("sw"),
      object: o.literal("swap"),
      status: o.enum(SWAP_STATUSES),
      quote: o.anyOf(o.id("qt"), Quote, { description: "The quote's id; the quote with `expand[]=quote`" }),
      from: conversionSide,
      to: conversionSide,
      destination_chain: chain(),
      executed_rate: o.nullable(
        o.decimal({ description: "The quote's rate, or the refreshed quote's when `refreshed`; null when the swap failed (nothing was executed)" }),
      ),
      refreshed: o.boolean(),
      failure_code: o.nullable(o.string({ description: "`venue_rejected` when failed", example: "venue_rejected" })),
      metadata: metadataObject,
      created: o.time(),
      settled: o.nullable(o.time()),
    },
    { description: "A conversion executed at a quote" },
  ),
);

export const SwapList = listOf("Swap", Swap);

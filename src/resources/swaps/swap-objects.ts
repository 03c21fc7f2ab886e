import { ConversionExecution, chain, conversionSide, listOf } from "../../api/common-objects";
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
        o.decimal({
          description:
            "The quote's rate: a quote is firm, and what the venues deliver beyond it is the platform's. When `refreshed`, the rate actually achieved (what the venues delivered less the quoted fees, which the ledger reflects) once settled, the refreshed quote's before. Null when the swap failed (nothing was executed)",
        }),
      ),
      refreshed: o.boolean(),
      executions: o.optional(
        o.array(ConversionExecution, {
          description: `Each leg as its venue executed it, once settled (empty before, and when it failed): venue, chain, \`tx_hash\` and block, amounts, path. ${"Answered from version 2026-12-07 on; absent before"}`,
        }),
      ),
      failure_code: o.nullable(o.string({ description: "`venue_rejected` when failed", example: "venue_rejected" })),
      metadata: metadataObject,
      created: o.time(),
      settled: o.nullable(o.time()),
    },
    { description: "A conversion executed at a quote" },
  ),
);

export const SwapList = listOf("Swap", Swap);

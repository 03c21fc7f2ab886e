import { conversionSide, money } from "../../api/common-objects";
import { o } from "../../api/response-schema";
import { metadataObject } from "../../metadata/metadata";

export const Quote = o.named(
  "Quote",
  o.object(
    {
      id: o.id("qt"),
      object: o.literal("quote"),
      from: conversionSide,
      to: conversionSide,
      rate: o.decimal({ description: "Net output per input after all fees and impact, 18 decimals rounded down" }),
      price_impact: o.decimal({ description: "1 − gross / (amount · r0), r0 the best zero-size rate net of venue fees" }),
      network_fee: money("In `to.asset`: the fixed costs of the venues used"),
      platform_fee: money("In `to.asset`: zero on stablecoin pairs"),
      venues: o.array(
        o.object({
          name: o.string({ example: "pool_a" }),
          weight: o.decimal({ description: "Share of the input, 6 decimals; weights sum to 1 (0 for a sliver under half a millionth)" }),
          from_amount: o.optional(
            o.decimal({
              description:
                "What this venue sells of `from.asset`; the venues' amounts sum to `from.amount`. Answered from version 2026-12-07 on; absent before",
            }),
          ),
          to_amount: o.optional(
            o.decimal({
              description:
                "What this venue delivers of `to.asset` for it, before the quote's network and platform fees. Answered from version 2026-12-07 on; absent before",
            }),
          ),
        }),
        { description: "The split: every venue the conversion uses, by weight" },
      ),
      approximate: o.boolean({ description: "True when a heuristic chose the venues (more than 12 of them with a fixed cost)" }),
      metadata: metadataObject,
      created: o.time(),
      expires_at: o.time(),
    },
    { description: "A firm price for a conversion, valid until `expires_at`; backs one swap" },
  ),
);

import { ConversionExecution, asset, chain, conversionSide, listOf, money, txHash } from "../../api/common-objects";
import { o } from "../../api/response-schema";
import { CANCELLATION_REASONS, LIMIT_ORDER_STATUSES } from "./limit-order-machine";
import { metadataObject } from "../../metadata/metadata";

export const LimitOrderFill = o.named(
  "LimitOrderFill",
  o.object({
    id: o.id("fil"),
    from_amount: o.decimal(),
    to_amount: o.decimal(),
    rate: o.decimal({ description: "to_amount per from_amount, never below the order's target_rate" }),
    price_impact: o.decimal(),
    network_fee: o.decimal(),
    platform_fee: o.decimal(),
    tx_hash: o.optional(
      o.nullable(txHash, {
        description:
          "The transaction that carried the fill (its first leg's, when it had several); null for venues off chain. Answered from version 2026-12-07 on; absent before",
      }),
    ),
    block: o.optional(o.nullable(o.integer({ description: "The block of `tx_hash`. Answered from version 2026-12-07 on; absent before", minimum: 0 }))),
    executions: o.optional(
      o.array(ConversionExecution, { description: "Each leg of the fill as its venue executed it. Answered from version 2026-12-07 on; absent before" }),
    ),
    created: o.time(),
  }),
);

export const LimitOrder = o.named(
  "LimitOrder",
  o.object(
    {
      id: o.id("lo"),
      object: o.literal("limit_order"),
      status: o.enum(LIMIT_ORDER_STATUSES),
      cancellation_reason: o.nullable(o.enum(CANCELLATION_REASONS)),
      from: conversionSide,
      to: o.object({ asset: asset() }),
      destination_chain: chain(),
      target_rate: o.decimal(),
      partial_fills: o.boolean(),
      max_slippage: o.nullable(o.decimal()),
      filled: o.object({ from_amount: o.decimal(), to_amount: o.decimal() }),
      reserved_amount: money("What the order still holds reserved, in `from.asset`"),
      fills: o.array(LimitOrderFill),
      expires_at: o.time(),
      metadata: metadataObject,
      created: o.time(),
    },
    { description: "A conversion that waits for a target rate (docs/decisions.md §4)" },
  ),
);

export const LimitOrderList = listOf("LimitOrder", LimitOrder);

import { defineEvent, type SampleContext } from "../../engine/module";
import { isoTime } from "../../validation/timestamp";
import type { LimitOrderObject } from "./limit-order-doc";
import { LimitOrder } from "./limit-order-objects";

type OrderStatus = LimitOrderObject["status"];

/** A sample order of 100 USDC into ETH in `status`: nothing filled (working), half (partially_filled, canceled) or all (filled). */
function sampleOrder({ ids, now }: SampleContext, status: OrderStatus): LimitOrderObject {
  const created = isoTime(now);
  const filledFrom = status === "working" ? "0" : status === "filled" ? "100" : "50";
  const filledTo = status === "working" ? "0" : status === "filled" ? "0.03" : "0.015";
  return {
    id: ids.next("lo"),
    object: "limit_order",
    status,
    cancellation_reason: status === "canceled" ? "requested" : null,
    from: { asset: "USDC", amount: "100" },
    to: { asset: "ETH" },
    destination_chain: "base",
    target_rate: "0.0003",
    partial_fills: true,
    max_slippage: null,
    filled: { from_amount: filledFrom, to_amount: filledTo },
    reserved_amount: status === "working" ? "100" : status === "partially_filled" ? "50" : "0",
    metadata: {},
    fills:
      filledFrom === "0"
        ? []
        : [
            {
              id: ids.next("fil"),
              from_amount: filledFrom,
              to_amount: filledTo,
              rate: "0.0003",
              price_impact: "0.0001",
              network_fee: "0",
              platform_fee: "0",
              tx_hash: null,
              block: null,
              executions: [{ venue: "pool_a", chain: null, tx_hash: null, block: null, from_amount: filledFrom, to_amount: filledTo, path: ["USDC", "ETH"] }],
              created,
            },
          ],
    expires_at: isoTime(now + 86_400_000),
    created,
  };
}

const orderEvent = <const S extends OrderStatus>(status: S, description: string) =>
  defineEvent({ type: `limit_order.${status}`, description, object: LimitOrder, sample: (ctx) => sampleOrder(ctx, status) });

/** The limit orders' events (the seed's catalogue), each with a sample of its object. */
export const LIMIT_ORDER_EVENTS = [
  orderEvent("working", "A limit order was placed; its input is reserved while it waits for its target rate"),
  orderEvent("partially_filled", "A tranche of a limit order filled at or above its target rate"),
  orderEvent("filled", "A limit order filled completely"),
  orderEvent("canceled", "A limit order was canceled (requested, or expired); what it still held was released"),
] as const;

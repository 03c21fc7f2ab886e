import type { IdGenerator } from "../ids";
import { isoTime } from "../validation/timestamp";
import type { EventType } from "./catalogue";

/**
 * Sample resource snapshots for `POST /v1/test_helpers/events/trigger` (DECISIONS.md §7): one of
 * each event type's resource, shaped as DECISIONS.md §4 describes it, with fresh ids and
 * `sample: true`, so a receiver can be built and tested before any real payout or swap exists.
 * They are snapshots only: nothing is created and no value moves.
 */
export function sampleObject(type: EventType, ids: IdGenerator, now: number): Record<string, unknown> {
  const created = isoTime(now);
  const [resource, status] = splitType(type);
  switch (resource) {
    case "payment_intent":
      return {
        id: ids.next("pi"),
        object: "payment_intent",
        status,
        amount: "100",
        asset: "USDC",
        amount_received: status === "succeeded" ? "100" : status === "partially_paid" ? "60" : "0",
        reference: "sample",
        expires_at: isoTime(now + 3_600_000),
        created,
        sample: true,
      };
    case "payout": {
      const legStatus = status === "settled" ? "confirmed" : status === "failed" ? "failed" : "broadcast";
      const leg = {
        id: `${ids.next("po")}_leg_0`,
        chain: "base",
        amount: "25",
        fee: "0.01",
        status: legStatus,
        tx_hash: `0x${"ab".repeat(32)}`,
        confirmations: legStatus === "confirmed" ? 12 : 0,
        finality: legStatus === "confirmed" ? "final" : "included",
      };
      if (status === "leg.broadcast") return { ...leg, object: "payout_leg", payout: ids.next("po"), sample: true };
      if (status === "batch.completed") {
        return {
          id: ids.next("bat"),
          object: "payout_batch",
          status: "completed",
          reference: "sample",
          leg_count: 2,
          total_amount: "50",
          counts: { settled: 2 },
          created,
          completed_at: created,
          sample: true,
        };
      }
      const payoutStatus = status === "created" ? "executing" : status;
      return {
        id: ids.next("po"),
        object: "payout",
        status: payoutStatus,
        amount: "25",
        asset: "USDC",
        recipient: ids.next("rcp"),
        reference: "sample",
        fee: "0.01",
        legs: [leg],
        created,
        sample: true,
      };
    }
    case "swap":
      return {
        id: ids.next("sw"),
        object: "swap",
        status,
        quote: ids.next("qt"),
        from: { asset: "USDC", amount: "100" },
        to: { asset: "ETH", amount: "0.03" },
        destination_chain: "base",
        executed_rate: "0.0003",
        failure_code: status === "failed" ? "insufficient_liquidity" : null,
        created,
        settled: status === "settled" ? created : null,
        sample: true,
      };
    case "limit_order":
      return {
        id: ids.next("lo"),
        object: "limit_order",
        status,
        cancellation_reason: status === "canceled" ? "requested" : null,
        from: { asset: "USDC", amount: "100" },
        to: { asset: "ETH" },
        target_rate: "0.0003",
        partial_fills: true,
        max_slippage: null,
        filled: { from_amount: status === "working" ? "0" : "50", to_amount: status === "working" ? "0" : "0.015" },
        reserved_amount: status === "working" ? "100" : "50",
        fills: [],
        expires_at: isoTime(now + 86_400_000),
        created,
        sample: true,
      };
    case "balance":
      return {
        object: "balance",
        asset: "USDC",
        available: "0",
        reserved: "0",
        pending: "0",
        chains: { base: { available: "0", reserved: "0", pending: "0" } },
        as_of: created,
        sample: true,
      };
    case "recipient":
      return {
        id: ids.next("rcp"),
        object: "recipient",
        name: "Sample recipient",
        chain_addresses: { base: `0x${"12".repeat(20)}` },
        screening: true,
        screening_status: "cleared",
        created,
        sample: true,
      };
    default:
      throw new Error(`no sample for ${type}`);
  }
}

/** `payout.leg.broadcast` → [`payout`, `leg.broadcast`]. */
function splitType(type: EventType): [string, string] {
  const dot = type.indexOf(".");
  return [type.slice(0, dot), type.slice(dot + 1)];
}

import type { EventType } from "../../events/catalogue";
import type { IdGenerator } from "../../ids";
import { balanceObject } from "../../ledger/balances";
import type { AssetRegistry } from "../../money/assets";
import { isoTime } from "../../validation/timestamp";
import { presentPaymentIntent } from "../payment-intents/payment-intent-doc";
import type { PaymentIntentStatus } from "../payment-intents/payment-intent-machine";
import { presentBatch } from "../payouts/batch-doc";
import { presentLeg, presentPayout, type LegDoc, type PayoutDoc } from "../payouts/payout-doc";
import type { PayoutStatus } from "../payouts/payout-machine";
import { presentRecipient } from "../recipients/recipients-service";
import { presentReport } from "../reports/report-doc";
import type { SwapStatus } from "../swaps/swap-machine";
import { type SwapObject } from "../swaps/swap-doc";
import { type LimitOrderObject } from "../limit-orders/limit-order-doc";

/**
 * Sample resource snapshots for `POST /v1/test_helpers/events/trigger` (DECISIONS.md §7): one of
 * each event type's resource, built with the same presenters (or typed as the same objects) as
 * the real ones, so a receiver can be built and tested before any real payout or swap exists.
 * Each carries `sample: true`. They are snapshots only: nothing is created and no value moves.
 */
export function sampleObject(type: EventType, ids: IdGenerator, assets: AssetRegistry, now: number): object {
  const created = isoTime(now);
  const [resource, status] = splitType(type);
  const sample = <T extends object>(object: T) => ({ ...object, sample: true as const });
  switch (resource) {
    case "payment_intent": {
      const paid = status === "succeeded" ? "100000000" : status === "partially_paid" ? "60000000" : null;
      return sample(
        presentPaymentIntent(assets, {
          id: ids.next("pi"),
          status: status as PaymentIntentStatus,
          asset: "USDC",
          amount: "100000000",
          minimum: "100000000",
          tolerance: "0",
          chains: ["base"],
          reference: "sample",
          depositAddresses: { base: `0x${"12".repeat(20)}` },
          settlements: paid
            ? [
                {
                  id: ids.next("stl"),
                  transferId: "sample",
                  chain: "base",
                  asset: "USDC",
                  amount: paid,
                  txHash: `0x${"ab".repeat(32)}`,
                  confirmations: 6,
                  finality: "final",
                  reason: null,
                  ledger: "available",
                  shortfall: "0",
                  created: now,
                },
              ]
            : [],
          ledgerEntries: [],
          expiresAt: now + 3_600_000,
          created: now,
        }),
      );
    }
    case "payout": {
      const payoutStatus: PayoutStatus = status === "created" || status === "leg.broadcast" ? "executing" : (status as PayoutStatus);
      const leg: LegDoc = {
        id: ids.next("leg"),
        chain: "base",
        address: `0x${"12".repeat(20)}`,
        amount: "25000000",
        fee: "10000",
        reservation: "sample",
        status: payoutStatus === "settled" ? "confirmed" : payoutStatus === "failed" ? "failed" : "broadcast",
        machine: {
          txHash: payoutStatus === "failed" ? null : `0x${"ab".repeat(32)}`,
          confirmations: payoutStatus === "settled" ? 6 : 0,
          finality: payoutStatus === "settled" ? "final" : "pending",
          failureCode: payoutStatus === "failed" ? "broadcast_rejected" : null,
        },
      };
      const doc: PayoutDoc = {
        id: ids.next("po"),
        status: payoutStatus,
        machine: { requiresApproval: false },
        asset: "USDC",
        amount: "25000000",
        fee: "10000",
        recipient: ids.next("rcp"),
        reference: "sample",
        batch: null,
        row: null,
        routing: null,
        approximateRoute: false,
        legs: [leg],
        ledgerEntries: [],
        created: now,
        canceledAt: null,
        settledAt: payoutStatus === "settled" || payoutStatus === "partially_settled" ? now : null,
      };
      if (status === "leg.broadcast") return sample(presentLeg(assets.get("USDC")!, leg, doc.id));
      if (status === "batch.completed") {
        return sample(
          presentBatch(assets, {
            id: ids.next("bat"),
            status: "completed",
            reference: "sample",
            funding: { asset: "USDC", source: "auto" },
            legCount: 2,
            totalAmount: "50000000",
            counts: { settled: 2 },
            created: now,
            completedAt: now,
          }),
        );
      }
      return sample(presentPayout(assets, doc));
    }
    case "swap": {
      const swap: SwapObject = {
        id: ids.next("sw"),
        object: "swap",
        status: status as SwapStatus,
        quote: ids.next("qt"),
        from: { asset: "USDC", amount: "100" },
        to: { asset: "ETH", amount: "0.03" },
        destination_chain: "base",
        executed_rate: "0.0003",
        refreshed: false,
        failure_code: status === "failed" ? "venue_rejected" : null,
        created,
        settled: status === "settled" ? created : null,
      };
      return sample(swap);
    }
    case "limit_order": {
      const filled = status !== "working";
      const order: LimitOrderObject = {
        id: ids.next("lo"),
        object: "limit_order",
        status: status as LimitOrderObject["status"],
        cancellation_reason: status === "canceled" ? "requested" : null,
        from: { asset: "USDC", amount: "100" },
        to: { asset: "ETH" },
        destination_chain: "base",
        target_rate: "0.0003",
        partial_fills: true,
        max_slippage: null,
        filled: { from_amount: filled ? "50" : "0", to_amount: filled ? "0.015" : "0" },
        reserved_amount: status === "working" ? "100" : status === "partially_filled" ? "50" : "0",
        fills: [],
        expires_at: isoTime(now + 86_400_000),
        created,
      };
      return sample(order);
    }
    case "balance":
      return sample(balanceObject(assets.get("USDC")!, [], now));
    case "recipient":
      return sample(
        presentRecipient({
          id: ids.next("rcp"),
          name: "Sample recipient",
          chainAddresses: { base: `0x${"12".repeat(20)}` },
          screening: true,
          screeningStatus: "cleared",
          version: 1,
          created: now,
        }),
      );
    case "report": {
      const ready = status === "ready";
      return sample(
        presentReport({
          id: ids.next("rpt"),
          type: "payout_ledger",
          status: ready ? "ready" : "failed",
          format: "csv",
          livemode: false,
          createdGte: now - 86_400_000,
          createdLt: now,
          blobKey: "reports/sample.csv",
          rowCount: ready ? 42 : null,
          size: ready ? 4_200 : null,
          failureReason: ready ? null : "The file could not be built after 6 attempts: sample",
          created: now,
          completedAt: now,
        }),
      );
    }
    default:
      throw new Error(`no sample for ${type}`);
  }
}

/** `payout.leg.broadcast` → [`payout`, `leg.broadcast`]. */
function splitType(type: EventType): [string, string] {
  const dot = type.indexOf(".");
  return [type.slice(0, dot), type.slice(dot + 1)];
}

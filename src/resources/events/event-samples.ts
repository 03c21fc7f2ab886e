import type { EventType } from "../../events/catalogue";
import type { IdGenerator } from "../../ids";
import { balanceObject } from "../../ledger/balances";
import type { AssetRegistry } from "../../money/assets";
import { isoTime } from "../../validation/timestamp";
import type { Finality } from "../../ports/chain";
import { presentPaymentIntent, type SettlementDoc, type SettlementLedger } from "../payment-intents/payment-intent-doc";
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
      const piStatus = status as PaymentIntentStatus;
      const deposit = (amount: string, finality: Finality, ledger: SettlementLedger, extra: Partial<SettlementDoc> = {}): SettlementDoc => ({
        id: ids.next("stl"),
        transferId: "sample",
        chain: "base",
        asset: "USDC",
        amount,
        txHash: `0x${"ab".repeat(32)}`,
        confirmations: finality === "final" ? 6 : finality === "included" ? 2 : 0,
        finality,
        reason: null,
        ledger,
        shortfall: "0",
        created: now,
        ...extra,
      });
      // Each status with the deposits that lead to it (the machine's own rules).
      const settlements: Record<PaymentIntentStatus, SettlementDoc[]> = {
        requires_payment: [],
        processing: [deposit("100000000", "included", "pending")],
        succeeded: [deposit("100000000", "final", "available")],
        partially_paid: [deposit("60000000", "final", "available")],
        expired: [],
        reverted: [deposit("100000000", "reverted", "reversed")],
        unsupported_chain: [deposit("100000000", "final", "none", { chain: "polygon", reason: "unsupported_chain" })],
      };
      return sample(
        presentPaymentIntent(assets, {
          id: ids.next("pi"),
          status: piStatus,
          asset: "USDC",
          amount: "100000000",
          minimum: "100000000",
          tolerance: "0",
          chains: ["base"],
          reference: "sample",
          depositAddresses: { base: `0x${"12".repeat(20)}` },
          settlements: settlements[piStatus] ?? [],
          ledgerEntries: [],
          expiresAt: now + 3_600_000,
          created: now,
        }),
      );
    }
    case "payout": {
      const payoutStatus: PayoutStatus = status === "created" || status === "leg.broadcast" ? "executing" : (status as PayoutStatus);
      const leg = (chain: string, amount: string, fee: string, outcome: "broadcast" | "confirmed" | "failed"): LegDoc => ({
        id: ids.next("leg"),
        chain,
        address: chain === "solana" ? "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" : `0x${"12".repeat(20)}`,
        amount,
        fee,
        reservation: "sample",
        status: outcome,
        machine: {
          txHash: outcome === "failed" ? null : chain === "solana" ? "5".repeat(88) : `0x${"ab".repeat(32)}`,
          confirmations: outcome === "confirmed" ? 6 : 0,
          finality: outcome === "confirmed" ? "final" : "pending",
          failureCode: outcome === "failed" ? "broadcast_rejected" : null,
        },
      });
      // Legs as the payout's status requires: all final, all failed, or some of each.
      const legs: LegDoc[] =
        payoutStatus === "partially_settled"
          ? [leg("base", "15000000", "10001", "confirmed"), leg("solana", "10000000", "1001", "failed")]
          : [leg("base", "25000000", "10002", payoutStatus === "settled" ? "confirmed" : payoutStatus === "failed" ? "failed" : "broadcast")];
      const doc: PayoutDoc = {
        id: ids.next("po"),
        status: payoutStatus,
        machine: { requiresApproval: false },
        asset: "USDC",
        amount: "25000000",
        fee: legs.reduce((sum, l) => sum + BigInt(l.fee), 0n).toString(),
        recipient: ids.next("rcp"),
        reference: "sample",
        batch: null,
        row: null,
        routing: null,
        approximateRoute: false,
        legs,
        ledgerEntries: [],
        created: now,
        canceledAt: null,
        settledAt: payoutStatus === "settled" || payoutStatus === "partially_settled" ? now : null,
      };
      const [firstLeg] = legs;
      if (status === "leg.broadcast") return sample(presentLeg(assets.get("USDC")!, firstLeg!, doc.id));
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
      const orderStatus = status as LimitOrderObject["status"];
      // working: nothing filled; partially_filled and canceled: one tranche of half; filled: all.
      const filledFrom = orderStatus === "working" ? "0" : orderStatus === "filled" ? "100" : "50";
      const filledTo = orderStatus === "working" ? "0" : orderStatus === "filled" ? "0.03" : "0.015";
      const order: LimitOrderObject = {
        id: ids.next("lo"),
        object: "limit_order",
        status: orderStatus,
        cancellation_reason: orderStatus === "canceled" ? "requested" : null,
        from: { asset: "USDC", amount: "100" },
        to: { asset: "ETH" },
        destination_chain: "base",
        target_rate: "0.0003",
        partial_fills: true,
        max_slippage: null,
        filled: { from_amount: filledFrom, to_amount: filledTo },
        reserved_amount: orderStatus === "working" ? "100" : orderStatus === "partially_filled" ? "50" : "0",
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
                  created,
                },
              ],
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

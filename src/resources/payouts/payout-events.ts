import { defineEvent, type SampleContext } from "../../engine/module";
import { presentBatch } from "./batch-doc";
import { presentLeg, presentPayout, type LegDoc, type PayoutDoc } from "./payout-doc";
import type { PayoutStatus } from "./payout-machine";
import { Payout, PayoutBatch, PayoutLeg } from "./payout-objects";

type LegOutcome = "broadcast" | "confirmed" | "failed";

/** A sample payout of 25 USDC in `status`, with legs as that status requires (all final, all failed, or some of each). */
function samplePayout({ ids, now }: SampleContext, status: PayoutStatus): PayoutDoc {
  const leg = (chain: string, amount: string, fee: string, outcome: LegOutcome): LegDoc => ({
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
  const legs: LegDoc[] =
    status === "partially_settled"
      ? [leg("base", "15000000", "10001", "confirmed"), leg("solana", "10000000", "1001", "failed")]
      : [leg("base", "25000000", "10002", status === "settled" ? "confirmed" : status === "failed" ? "failed" : "broadcast")];
  return {
    id: ids.next("po"),
    status,
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
    settledAt: status === "settled" || status === "partially_settled" ? now : null,
  };
}

const payoutEvent = <const T extends string>(type: T, status: PayoutStatus, description: string) =>
  defineEvent({ type, description, object: Payout, sample: (ctx) => presentPayout(ctx.assets, samplePayout(ctx, status)) });

/** The payouts' events (the seed's catalogue), each with a sample of its object. */
export const PAYOUT_EVENTS = [
  payoutEvent("payout.created", "executing", "A payout was created (executing, or created while it waits for approval)"),
  defineEvent({
    type: "payout.leg.broadcast",
    description: "One leg of a payout was broadcast: its transaction hash is known",
    object: PayoutLeg,
    sample: (ctx) => {
      const doc = samplePayout(ctx, "executing");
      return presentLeg(ctx.assets.get("USDC")!, doc.legs[0]!, doc.id);
    },
  }),
  payoutEvent("payout.settled", "settled", "Every leg of a payout is final"),
  payoutEvent("payout.partially_settled", "partially_settled", "Some legs of a payout are final and the others failed"),
  payoutEvent("payout.failed", "failed", "Every leg of a payout failed; its funds were released"),
  defineEvent({
    type: "payout.batch.completed",
    description: "Every payout of a batch reached a final status",
    object: PayoutBatch,
    sample: ({ ids, assets, now }) =>
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
  }),
] as const;

import { defineEvent, type SampleContext } from "../../engine/module";
import type { Finality } from "../../ports/chain";
import { presentPaymentIntent, type SettlementDoc, type SettlementLedger } from "./payment-intent-doc";
import type { PaymentIntentStatus } from "./payment-intent-machine";
import { PaymentIntent } from "./payment-intent-objects";

/** A sample intent for 100 USDC on base in `status`, with the deposits that lead there (the machine's own rules). */
function sampleIntent({ ids, assets, now }: SampleContext, status: PaymentIntentStatus) {
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
  const settlements: Record<PaymentIntentStatus, () => SettlementDoc[]> = {
    // the event follows a reorganisation: the deposit it had counted is reverted
    requires_payment: () => [deposit("60000000", "reverted", "reversed")],
    processing: () => [deposit("100000000", "included", "pending")],
    succeeded: () => [deposit("100000000", "final", "available")],
    partially_paid: () => [deposit("60000000", "final", "available")],
    expired: () => [],
    reverted: () => [deposit("100000000", "reverted", "reversed")],
    unsupported_chain: () => [deposit("100000000", "final", "none", { chain: "polygon", reason: "unsupported_chain" })],
  };
  return presentPaymentIntent(assets, {
    id: ids.next("pi"),
    status,
    asset: "USDC",
    amount: "100000000",
    minimum: "100000000",
    tolerance: "0",
    chains: ["base"],
    reference: "sample",
    depositAddresses: { base: `0x${"12".repeat(20)}` },
    settlements: settlements[status](),
    ledgerEntries: [],
    expiresAt: now + 3_600_000,
    created: now,
  });
}

const intentEvent = <const S extends PaymentIntentStatus>(status: S, description: string) =>
  defineEvent({ type: `payment_intent.${status}`, description, object: PaymentIntent, sample: (ctx) => sampleIntent(ctx, status) });

/** The payment intents' events (the seed's catalogue), each with a sample of its object. */
export const PAYMENT_INTENT_EVENTS = [
  intentEvent("processing", "A deposit to the intent was seen on chain (credited as pending until final)"),
  intentEvent("succeeded", "The intent received its amount (within tolerance) at finality"),
  intentEvent("partially_paid", "Final deposits to the intent fall short of its amount (what arrived stays credited)"),
  intentEvent("expired", "The intent expired with nothing received or pending"),
  intentEvent("reverted", "A reorganisation removed deposits a succeeded intent had counted; their credit was taken back"),
  intentEvent("unsupported_chain", "A deposit arrived on a chain or in an asset the intent does not accept"),
  intentEvent(
    "requires_payment",
    "A reorganisation removed every deposit a processing or partially paid intent had counted: it waits for payment again (what was credited was taken back)",
  ),
] as const;

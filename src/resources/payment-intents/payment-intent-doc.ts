import type { Settlement } from "./payment-intent-objects";
import type { Out } from "../../api/response-schema";
import type { PaymentIntentStatus } from "./payment-intent-machine";
import type { AssetRegistry } from "../../money/assets";
import { formatAmount } from "../../money/amount";
import type { Finality } from "../../ports/chain";
import { isoTime } from "../../validation/timestamp";
import { DocStore } from "../../engine/doc-store";

/** Why a deposit was recorded without being credited to the intent. */
export type NotCreditedReason = "unsupported_chain" | "unsupported_asset" | "after_expiry";

/** Where a deposit stands in the ledger. */
export type SettlementLedger = "none" | "pending" | "available" | "reversed";

/** One inbound transfer to an intent's address, as recorded. */
export interface SettlementDoc {
  id: string;
  transferId: string;
  chain: string;
  asset: string;
  /** Base units of `asset`. */
  amount: string;
  txHash: string;
  confirmations: number;
  finality: Finality;
  /** Whether the deposit counts toward the intent (null reason) or is only recorded. */
  reason: NotCreditedReason | null;
  ledger: SettlementLedger;
  /**
   * For a deposit not credited (`reason`): whether the books hold it in the intent account's
   * `counter:unallocated` (while the chain has it), or released it when a reorganisation removed
   * it. Absent on settlements recorded before uncredited deposits were booked (none held).
   */
  held?: "held" | "released";
  /** Base units a reversal could not take back because the account had spent them. */
  shortfall: string;
  created: number;
}

/** A payment intent as stored. */
export interface PaymentIntentDoc {
  id: string;
  status: PaymentIntentStatus;
  asset: string;
  amount: string;
  /** amount × (1 − tolerance), rounded up: what counts as paid. */
  minimum: string;
  tolerance: string;
  chains: string[];
  reference: string | null;
  depositAddresses: Record<string, string>;
  settlements: SettlementDoc[];
  ledgerEntries: string[];
  expiresAt: number;
  /** Absent on documents written before metadata existed: none. */
  metadata?: Metadata;
  created: number;
}

export const PAYMENT_INTENTS = new DocStore<PaymentIntentDoc>({
  kind: "payment_intent",
  version: 1,
  status: (doc) => doc.status,
  reference: (doc) => doc.reference,
});

export type SettlementStatus = "pending" | "credited" | "reversed" | "not_credited";

export type SettlementObject = Out<typeof Settlement>;

import type { PaymentIntentObject } from "./payment-intent-objects";
import { type Metadata, presentMetadata } from "../../metadata/metadata";
export type { PaymentIntentObject };

/** Σ of the credited deposits in one ledger state. */
export function creditedIn(doc: PaymentIntentDoc, state: SettlementLedger): bigint {
  return doc.settlements.filter((s) => s.reason === null && s.ledger === state).reduce((sum, s) => sum + BigInt(s.amount), 0n);
}

export function settlementStatus(s: SettlementDoc): SettlementStatus {
  if (s.reason !== null) return "not_credited";
  if (s.ledger === "available") return "credited";
  if (s.ledger === "reversed" || s.finality === "reverted") return "reversed";
  return "pending";
}

export function presentSettlement(assets: AssetRegistry, intentId: string, s: SettlementDoc): SettlementObject {
  const asset = assets.get(s.asset);
  const fmt = (units: string) => (asset ? formatAmount(BigInt(units), asset) : units);
  return {
    id: s.id,
    object: "settlement",
    payment_intent: intentId,
    chain: s.chain,
    asset: s.asset,
    amount: fmt(s.amount),
    tx_hash: s.txHash,
    confirmations: s.confirmations,
    finality: s.finality,
    status: settlementStatus(s),
    reason: s.reason,
    unrecovered: fmt(s.shortfall),
    created: isoTime(s.created),
  };
}

export function presentPaymentIntent(assets: AssetRegistry, doc: PaymentIntentDoc): PaymentIntentObject {
  const asset = assets.get(doc.asset)!;
  const received = creditedIn(doc, "available");
  const excess = received - BigInt(doc.amount);
  return {
    id: doc.id,
    object: "payment_intent",
    status: doc.status,
    amount: formatAmount(BigInt(doc.amount), asset),
    asset: doc.asset,
    amount_received: formatAmount(received, asset),
    amount_pending: formatAmount(creditedIn(doc, "pending"), asset),
    amount_excess: formatAmount(excess > 0n ? excess : 0n, asset),
    tolerance: doc.tolerance,
    chains: doc.chains,
    reference: doc.reference,
    deposit_addresses: doc.depositAddresses,
    settlements: doc.settlements.map((s) => s.id),
    ledger_entries: doc.ledgerEntries,
    expires_at: isoTime(doc.expiresAt),
    metadata: presentMetadata(doc.metadata),
    created: isoTime(doc.created),
  };
}

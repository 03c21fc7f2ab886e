import type { LegContext, LegStatus } from "../../machines/leg-machine";
import type { PayoutContext, PayoutStatus } from "../../machines/payout-machine";
import type { AssetDefinition, AssetRegistry } from "../../money/assets";
import { formatAmount } from "../../money/amount";
import type { LedgerEntryObject } from "../../ledger/ledger-entries";
import { isoTime } from "../../validation/timestamp";
import { ResourceStore } from "../resource-store";

/** A leg as stored: amounts in base units (decimal text), and its machine's state. */
export interface LegDoc {
  id: string;
  chain: string;
  address: string;
  amount: string;
  fee: string;
  /** The ledger reservation holding amount + fee until the leg is final or failed. */
  reservation: string;
  status: LegStatus;
  machine: LegContext;
  /** Set while a run is sending the leg (see `payout-workers.ts`); null or absent otherwise. */
  sendingSince?: number | null;
}

/** A payout as stored. */
export interface PayoutDoc {
  id: string;
  status: PayoutStatus;
  machine: PayoutContext;
  asset: string;
  amount: string;
  fee: string;
  recipient: string;
  reference: string | null;
  batch: string | null;
  row: number | null;
  routing: { prefer_chains: string[]; max_network_fee: string | null } | null;
  /** The route came from the greedy fallback, not the exact search. */
  approximateRoute: boolean;
  legs: LegDoc[];
  /** Ids of the account's ledger entries for this payout, oldest first. */
  ledgerEntries: string[];
  created: number;
  canceledAt: number | null;
  settledAt: number | null;
}

export const PAYOUTS = new ResourceStore<PayoutDoc>({
  kind: "payout",
  status: (doc) => doc.status,
  reference: (doc) => doc.reference,
});

/** The leg object (DECISIONS.md §4 leg extras); `payout` names its payout in `payout.leg.broadcast`. */
export interface LegObject {
  id: string;
  object: "payout_leg";
  payout?: string;
  chain: string;
  amount: string;
  fee: string;
  status: LegStatus;
  tx_hash: string | null;
  confirmations: number;
  finality: string;
  failure_code: string | null;
}

export interface PayoutObject {
  id: string;
  object: "payout";
  status: PayoutStatus;
  amount: string;
  asset: string;
  recipient: string;
  reference: string | null;
  batch: string | null;
  row: number | null;
  fee: string;
  legs: LegObject[];
  ledger_entries: string[] | LedgerEntryObject[];
  created: string;
  canceled_at: string | null;
  settled_at: string | null;
}

export function presentLeg(asset: AssetDefinition, leg: LegDoc, payoutId?: string): LegObject {
  return {
    id: leg.id,
    object: "payout_leg",
    ...(payoutId ? { payout: payoutId } : {}),
    chain: leg.chain,
    amount: formatAmount(BigInt(leg.amount), asset),
    fee: formatAmount(BigInt(leg.fee), asset),
    status: leg.status,
    tx_hash: leg.machine.txHash,
    confirmations: leg.machine.confirmations,
    finality: leg.machine.finality,
    failure_code: leg.machine.failureCode,
  };
}

export function presentPayout(assets: AssetRegistry, doc: PayoutDoc, entries?: LedgerEntryObject[]): PayoutObject {
  const asset = assets.get(doc.asset)!;
  return {
    id: doc.id,
    object: "payout",
    status: doc.status,
    amount: formatAmount(BigInt(doc.amount), asset),
    asset: doc.asset,
    recipient: doc.recipient,
    reference: doc.reference,
    batch: doc.batch,
    row: doc.row,
    fee: formatAmount(BigInt(doc.fee), asset),
    legs: doc.legs.map((leg) => presentLeg(asset, leg)),
    ledger_entries: entries ?? doc.ledgerEntries,
    created: isoTime(doc.created),
    canceled_at: doc.canceledAt === null ? null : isoTime(doc.canceledAt),
    settled_at: doc.settledAt === null ? null : isoTime(doc.settledAt),
  };
}

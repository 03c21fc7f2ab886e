import type { Payout, PayoutLeg } from "./payout-objects";
import type { Out } from "../../api/response-schema";
import type { LegContext, LegStatus } from "./leg-machine";
import type { PayoutContext, PayoutStatus } from "./payout-machine";
import type { AssetDefinition, AssetRegistry } from "../../money/assets";
import { formatAmount } from "../../money/amount";
import { isCustomerBook } from "../../ledger/postings";
import type { LedgerEntryRecord } from "../../ports/storage";
import { isoTime } from "../../validation/timestamp";
import { DocStore } from "../../engine/doc-store";
import { type Metadata, presentMetadata } from "../../metadata/metadata";

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
  /**
   * The process that is sending it, when that process heartbeats (`EngineDeps.process`): the
   * claim is taken over as soon as it is declared dead. Null or absent: the claim holds until it
   * runs out.
   */
  sendingBy?: string | null;
  /**
   * The account's ledger entries of this leg, oldest first, each with the part of its amount that
   * is network fee (signed base units, as text): what the `payout_ledger` report shows per entry.
   * Absent on legs stored before it was kept.
   */
  entries?: LegEntry[];
}

/** One of a leg's ledger entries (see `LegDoc.entries`). */
export interface LegEntry {
  id: string;
  fee: string;
}

/** The entries of `posted` in the account's own books as a leg's entries, with each one's fee share. */
export function legEntries(accountId: string, posted: readonly LedgerEntryRecord[], fee: (entry: LedgerEntryRecord) => bigint): LegEntry[] {
  return posted.filter((e) => e.accountId === accountId && isCustomerBook(e.book)).map((e) => ({ id: e.id, fee: fee(e).toString() }));
}

export function withEntries(leg: LegDoc, entries: LegEntry[]): LegDoc {
  return entries.length ? { ...leg, entries: [...(leg.entries ?? []), ...entries] } : leg;
}

/** -1, 0 or 1: the sign of a signed amount. */
export function sign(amount: bigint): bigint {
  return amount < 0n ? -1n : amount > 0n ? 1n : 0n;
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
  /** Absent on documents written before metadata existed, and when there is none. */
  metadata?: Metadata;
  created: number;
  canceledAt: number | null;
  settledAt: number | null;
}

export const PAYOUTS = new DocStore<PayoutDoc>({
  kind: "payout",
  version: 1,
  status: (doc) => doc.status,
  reference: (doc) => doc.reference,
});

/** The leg object (docs/decisions.md §4 leg extras); `payout` names its payout in `payout.leg.broadcast`. */
export type LegObject = Out<typeof PayoutLeg>;

export type PayoutObject = Out<typeof Payout>;

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

export function presentPayout(assets: AssetRegistry, doc: PayoutDoc): PayoutObject {
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
    ledger_entries: doc.ledgerEntries,
    metadata: presentMetadata(doc.metadata),
    created: isoTime(doc.created),
    canceled_at: doc.canceledAt === null ? null : isoTime(doc.canceledAt),
    settled_at: doc.settledAt === null ? null : isoTime(doc.settledAt),
  };
}

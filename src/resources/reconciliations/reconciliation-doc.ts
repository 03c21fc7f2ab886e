import type { Out } from "../../api/response-schema";
import { DocStore } from "../../engine/doc-store";
import type { AssetDefinition } from "../../money/assets";
import { formatAmount } from "../../money/amount";
import { isoTime } from "../../validation/timestamp";
import type { Reconciliation, ReconciliationSummary } from "./reconciliation-objects";

export const RECONCILIATION_STATUSES = ["balanced", "drift"] as const;
export type ReconciliationStatus = (typeof RECONCILIATION_STATUSES)[number];

/**
 * What the books say one chain's addresses should hold of one asset, part by part (base units,
 * signed, as text). `in_books` is their sum (docs/reconciliation.md).
 */
export interface BooksParts {
  /** Every account's `available`, `reserved` and `pending` (customers and the house). */
  balances: string;
  /** Network fees customers paid (`counter:network_fees`, and the old `counter:platform_fees`): the operator holds them on chain until spent. */
  operatorFees: string;
  /** Received, credited to no account (`counter:unallocated`): held for the payer. */
  unallocated: string;
  /** Booked without touching the chain (test funding, conversions at venues off chain): taken back out. */
  offChain: string;
  /** What the engine's own transactions paid the network in this asset (the adapter's count, from the receipts). */
  networkFeesPaid: string;
  /** Legs the chain carried that the books still hold reserved (booked at finality). */
  inFlight: string;
  /** The operator's own funds in the addresses: what the first reading found beyond the books, and what was accepted since. */
  float: string;
}

/** A deposit address holding more than the deposits the chain adapter read on it (money it never read). */
export interface AddressExcess {
  address: string;
  amount: string;
  expected: string;
}

/** A transfer in or out of the engine's addresses the chain adapter neither made nor read. */
export interface UnknownTransfer {
  txHash: string;
  address: string;
  amount: string;
  at: string | null;
}

/** One reading of a chain's holdings of one asset against the books, as stored (under the mode's house account). */
export interface ReconciliationDoc {
  id: string;
  livemode: boolean;
  chain: string;
  asset: string;
  status: ReconciliationStatus;
  /** Base units, as text: `difference = onChain − inBooks`. */
  onChain: string;
  inBooks: string;
  difference: string;
  /** Where the chain was read (`ChainHoldings.at`). */
  at: string;
  hotWallet: { address: string; amount: string };
  /** What the deposit addresses hold in all. */
  depositAddresses: string;
  parts: BooksParts;
  addresses: AddressExcess[];
  /** What the deposit addresses hold beyond the deposits read on them, in all (part of `difference`, never of the float). */
  unread?: string;
  unknownTransfers: UnknownTransfer[];
  /** The first reading of this chain and asset: it took the float. */
  opening: boolean;
  /** Accepted by the operator (`accept`): its difference joined the float; when, and why. */
  accepted: { at: number; reason: string } | null;
  /** Filter keys the list's `asset` filter matches on (the store's metadata filter). */
  metadata: { asset: string };
  created: number;
}

export const RECONCILIATIONS = new DocStore<ReconciliationDoc>({
  kind: "reconciliation",
  version: 1,
  status: (d) => d.status,
  // `chain:asset:`: the `chain` filter is a prefix of it, `chain` and `asset` together another
  reference: (d) => referenceOf(d.chain, d.asset),
});

export const referenceOf = (chain: string, asset?: string) => (asset === undefined ? `${chain}:` : `${chain}:${asset}:`);

export type ReconciliationObject = Out<typeof Reconciliation>;
export type ReconciliationSummaryObject = Out<typeof ReconciliationSummary>;

/** What a list shows of a record (docs/decisions.md §12). */
export function presentSummary(asset: AssetDefinition, d: ReconciliationDoc): ReconciliationSummaryObject {
  const fmt = (units: string) => formatAmount(BigInt(units), asset);
  return {
    id: d.id,
    object: "reconciliation",
    livemode: d.livemode,
    chain: d.chain,
    asset: d.asset,
    status: d.status,
    on_chain: fmt(d.onChain),
    in_books: fmt(d.inBooks),
    difference: fmt(d.difference),
    created: isoTime(d.created),
  };
}

/** The record with what explains its difference (`GET /v1/reconciliations/{id}`). */
export function presentReconciliation(asset: AssetDefinition, d: ReconciliationDoc): ReconciliationObject {
  const fmt = (units: string) => formatAmount(BigInt(units), asset);
  return {
    ...presentSummary(asset, d),
    explanation: {
      read_at: d.at,
      on_chain: { hot_wallet: { address: d.hotWallet.address, amount: fmt(d.hotWallet.amount) }, deposit_addresses: fmt(d.depositAddresses) },
      in_books: {
        balances: fmt(d.parts.balances),
        operator_fees: fmt(d.parts.operatorFees),
        unallocated: fmt(d.parts.unallocated),
        off_chain: fmt(d.parts.offChain),
        network_fees_paid: fmt(d.parts.networkFeesPaid),
        in_flight: fmt(d.parts.inFlight),
        float: fmt(d.parts.float),
      },
      addresses: d.addresses.map((a) => ({ address: a.address, holds: fmt(a.amount), deposits_read: fmt(a.expected) })),
      transactions: d.unknownTransfers.map((t) => ({ tx_hash: t.txHash, address: t.address, amount: fmt(t.amount), read_at: t.at })),
      opening: d.opening,
      accepted: d.accepted ? { at: isoTime(d.accepted.at), reason: d.accepted.reason } : null,
    },
  };
}

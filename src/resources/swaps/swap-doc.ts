import type { Swap } from "./swap-objects";
import type { Out } from "../../api/response-schema";
import { DocStore } from "../../engine/doc-store";
import type { AssetRegistry } from "../../money/assets";
import { formatAmount } from "../../money/amount";
import { fromPricingRecord, type PricingRecord } from "../../quoting/pricing-record";
import { formatRate } from "../../quoting/quote-metrics";
import { isoTime, parseTimestamp } from "../../validation/timestamp";
import { type ExecutionDoc, type HeldReservation, presentExecutions } from "../conversion";
import type { SwapStatus } from "./swap-machine";
import { type Metadata, presentMetadata } from "../../metadata/metadata";

/**
 * A swap as stored: the pricing it executes (its amounts and rate follow from it), the
 * reservations holding its input, and its machine's state.
 */
export interface SwapDoc {
  id: string;
  status: SwapStatus;
  quote: string;
  /** Asset codes converted from and to. */
  from: string;
  to: string;
  destinationChain: string;
  /** The quote's pricing, or the new one when an expired quote was refreshed. */
  pricing: PricingRecord;
  refreshed: boolean;
  reservations: HeldReservation[];
  /** `venue_rejected` when failed, with the venue's reason. */
  failureCode: string | null;
  failureReason: string | null;
  /** Absent on documents written before metadata existed: none. */
  metadata?: Metadata;
  created: number;
  settledAt: number | null;
  /**
   * What the venues delivered in all (base units of `to`), once settled: more than the pricing's
   * gross output when an on-chain pool moved in the swap's favour before it was mined. Absent
   * before settlement and on swaps stored before it was kept.
   */
  delivered?: string;
  /** Each leg as executed, once settled (where on chain, how much); absent before, and on swaps stored before they were kept. */
  executions?: ExecutionDoc[];
  /**
   * What the ledger credited the customer, base units of `to`, once settled. Absent before, and on
   * swaps settled before it was kept: those credited the quote's amount, or (settled while a
   * pool's improvement went to the customer) `delivered` less the quoted fees.
   */
  credited?: string;
}

/** Shape 1 stored the swap object with an `internal` part. */
interface SwapDocV1 {
  id: string;
  status: SwapStatus;
  quote: string;
  from: { asset: string };
  to: { asset: string };
  destination_chain: string;
  refreshed: boolean;
  failure_code: string | null;
  created: string;
  settled: string | null;
  internal: { pricing: PricingRecord; reservations: HeldReservation[]; failure_reason: string | null };
}

export const SWAPS = new DocStore<SwapDoc>({
  kind: "swap",
  version: 2,
  upgrade: (data) => {
    const v1 = data as unknown as SwapDocV1;
    return {
      id: v1.id,
      status: v1.status,
      quote: v1.quote,
      from: v1.from.asset,
      to: v1.to.asset,
      destinationChain: v1.destination_chain,
      pricing: v1.internal.pricing,
      refreshed: v1.refreshed,
      reservations: v1.internal.reservations,
      failureCode: v1.failure_code,
      failureReason: v1.internal.failure_reason,
      created: parseTimestamp(v1.created)!,
      settledAt: v1.settled === null ? null : parseTimestamp(v1.settled)!,
    };
  },
  status: (d) => d.status,
  reference: () => null,
});

/** The swap object of the seed and docs/decisions.md §4, plus `refreshed`. */
export type SwapObject = Out<typeof Swap>;

/**
 * What a settling swap credits the customer (the seed's `executed_rate`): exactly the quote's
 * `to.amount`, a firm price (what the venues delivered beyond it, a pool that moved the swap's
 * way before it was mined, is the house's); for a swap whose expired quote was refreshed, the rate
 * actually achieved: what the venues delivered less the quoted fees.
 */
export function toCredit(s: Pick<SwapDoc, "pricing" | "refreshed">, delivered: bigint): bigint {
  const pricing = fromPricingRecord(s.pricing);
  return s.refreshed ? delivered - pricing.networkFee - pricing.platformFee : pricing.netOut;
}

/** The swap's input and what the customer receives: what the ledger credited once settled, the quote's amount before. */
export function customerSide(s: SwapDoc): { amountIn: bigint; netOut: bigint } {
  const pricing = fromPricingRecord(s.pricing);
  if (s.credited !== undefined) return { amountIn: pricing.amountIn, netOut: BigInt(s.credited) };
  // settled before `credited` was kept, while the customer got what the venues delivered
  if (s.delivered !== undefined) return { amountIn: pricing.amountIn, netOut: BigInt(s.delivered) - pricing.networkFee - pricing.platformFee };
  return { amountIn: pricing.amountIn, netOut: pricing.netOut };
}

export function presentSwap(assets: AssetRegistry, s: SwapDoc): SwapObject {
  const from = assets.get(s.from)!;
  const to = assets.get(s.to)!;
  const { amountIn, netOut } = customerSide(s);
  return {
    id: s.id,
    object: "swap",
    status: s.status,
    quote: s.quote,
    from: { asset: s.from, amount: formatAmount(amountIn, from) },
    to: { asset: s.to, amount: formatAmount(netOut, to) },
    destination_chain: s.destinationChain,
    executed_rate: s.status === "failed" ? null : formatRate(netOut, amountIn, from, to),
    refreshed: s.refreshed,
    executions: presentExecutions(s.executions, from, to),
    failure_code: s.failureCode,
    metadata: presentMetadata(s.metadata),
    created: isoTime(s.created),
    settled: s.settledAt === null ? null : isoTime(s.settledAt),
  };
}

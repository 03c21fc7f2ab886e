import type { LimitOrder, LimitOrderFill } from "./limit-order-objects";
import type { Out } from "../../api/response-schema";
import { DocStore } from "../../engine/doc-store";
import type { AssetRegistry } from "../../money/assets";
import { formatAmount, formatUnits } from "../../money/amount";
import type { PricingRecord } from "../../quoting/pricing-record";
import { formatRate } from "../../quoting/quote-metrics";
import { isoTime, parseTimestamp } from "../../validation/timestamp";
import { type ExecutionDoc, type HeldReservation, presentExecutions } from "../conversion";
import type { CancellationReason, LimitOrderStatus } from "./limit-order-machine";
import { type Metadata, presentMetadata } from "../../metadata/metadata";

/** A fill as stored: base units of each side and fee, and the impact the venues showed then. */
export interface FillDoc {
  id: string;
  amountIn: string;
  netOut: string;
  networkFee: string;
  platformFee: string;
  /** 1 − gross / (amount · r0) at the fill, a fraction (r0 is of that moment). */
  priceImpact: string;
  /** Its legs as executed (where on chain, how much); absent on fills stored before they were kept. */
  executions?: ExecutionDoc[];
  created: number;
}

/** A fill decided and sent to the venues, not yet applied (it survives a crash in between). */
export interface PendingFill {
  id: string;
  pricing: PricingRecord;
  decidedAt: number;
}

/** A limit order as stored: its terms, what it filled and still holds (base units), its state. */
export interface LimitOrderDoc {
  id: string;
  status: LimitOrderStatus;
  cancellationReason: CancellationReason | null;
  /** Asset codes converted from and to. */
  from: string;
  to: string;
  destinationChain: string;
  /** Input to convert, base units of `from`. */
  amount: string;
  /** The order's terms as given (decimal fractions). */
  targetRate: string;
  partialFills: boolean;
  maxSlippage: string | null;
  filledIn: string;
  filledOut: string;
  /** What its reservations still hold, base units of `from`. */
  reserved: string;
  fills: FillDoc[];
  reservations: HeldReservation[];
  pending: PendingFill | null;
  expiresAt: number;
  /** Absent on documents written before metadata existed: none. */
  metadata?: Metadata;
  created: number;
}

/** Shape 1 stored the limit order object (display amounts) with an `internal` part. */
interface LimitOrderDocV1 {
  id: string;
  status: LimitOrderStatus;
  cancellation_reason: CancellationReason | null;
  from: { asset: string; amount: string };
  to: { asset: string };
  destination_chain: string;
  target_rate: string;
  partial_fills: boolean;
  max_slippage: string | null;
  filled: { to_amount: string };
  fills: { id: string; from_amount: string; to_amount: string; price_impact: string; network_fee: string; platform_fee: string; created: string }[];
  created: string;
  internal: {
    reservations: HeldReservation[];
    pending: { id: string; pricing: PricingRecord; decided_at: number } | null;
    expires_at_ms: number;
    amount: string;
    filled_in: string;
    filled_out: string;
    reserved: string;
  };
}

/**
 * The decimals behind a display amount, from its twin in base units (shape 1 kept both); null
 * when the amount is zero and says nothing.
 */
function decimalsOf(display: string, units: string): number | null {
  if (BigInt(units) === 0n) return null;
  for (let d = 0; d <= 38; d++) if (formatUnits(BigInt(units), d) === display) return d;
  throw new Error(`cannot tell the decimals of ${display} (${units} base units)`);
}

function unitsOf(display: string, decimals: number): string {
  const [whole, fraction = ""] = display.split(".") as [string, string?];
  return BigInt(whole + fraction.padEnd(decimals, "0")).toString();
}

export const LIMIT_ORDERS = new DocStore<LimitOrderDoc>({
  kind: "limit_order",
  version: 2,
  upgrade: (data) => {
    const v1 = data as unknown as LimitOrderDocV1;
    const i = v1.internal;
    const fromDecimals = decimalsOf(v1.from.amount, i.amount)!;
    const toDecimals = decimalsOf(v1.filled.to_amount, i.filled_out);
    return {
      id: v1.id,
      status: v1.status,
      cancellationReason: v1.cancellation_reason,
      from: v1.from.asset,
      to: v1.to.asset,
      destinationChain: v1.destination_chain,
      amount: i.amount,
      targetRate: v1.target_rate,
      partialFills: v1.partial_fills,
      maxSlippage: v1.max_slippage,
      filledIn: i.filled_in,
      filledOut: i.filled_out,
      reserved: i.reserved,
      fills: v1.fills.map((f) => ({
        id: f.id,
        amountIn: unitsOf(f.from_amount, fromDecimals),
        netOut: unitsOf(f.to_amount, toDecimals!),
        networkFee: unitsOf(f.network_fee, toDecimals!),
        platformFee: unitsOf(f.platform_fee, toDecimals!),
        priceImpact: f.price_impact,
        created: parseTimestamp(f.created)!,
      })),
      reservations: i.reservations,
      pending: i.pending && { id: i.pending.id, pricing: i.pending.pricing, decidedAt: i.pending.decided_at },
      expiresAt: i.expires_at_ms,
      created: parseTimestamp(v1.created)!,
    };
  },
  status: (d) => d.status,
  reference: () => null,
});

export type FillObject = Out<typeof LimitOrderFill>;

/** The limit order object of docs/decisions.md §4, plus `destination_chain` and per-fill fees. */
export type LimitOrderObject = Out<typeof LimitOrder>;

export function presentLimitOrder(assets: AssetRegistry, o: LimitOrderDoc): LimitOrderObject {
  const from = assets.get(o.from)!;
  const to = assets.get(o.to)!;
  return {
    id: o.id,
    object: "limit_order",
    status: o.status,
    cancellation_reason: o.cancellationReason,
    from: { asset: o.from, amount: formatAmount(BigInt(o.amount), from) },
    to: { asset: o.to },
    destination_chain: o.destinationChain,
    target_rate: o.targetRate,
    partial_fills: o.partialFills,
    max_slippage: o.maxSlippage,
    filled: { from_amount: formatAmount(BigInt(o.filledIn), from), to_amount: formatAmount(BigInt(o.filledOut), to) },
    reserved_amount: formatAmount(BigInt(o.reserved), from),
    fills: o.fills.map((f) => {
      const onChain = f.executions?.find((e) => e.txHash !== null);
      return {
        id: f.id,
        from_amount: formatAmount(BigInt(f.amountIn), from),
        to_amount: formatAmount(BigInt(f.netOut), to),
        rate: formatRate(BigInt(f.netOut), BigInt(f.amountIn), from, to),
        price_impact: f.priceImpact,
        network_fee: formatAmount(BigInt(f.networkFee), to),
        platform_fee: formatAmount(BigInt(f.platformFee), to),
        tx_hash: onChain?.txHash ?? null,
        block: onChain?.block ?? null,
        executions: presentExecutions(f.executions, from, to),
        created: isoTime(f.created),
      };
    }),
    expires_at: isoTime(o.expiresAt),
    metadata: presentMetadata(o.metadata),
    created: isoTime(o.created),
  };
}

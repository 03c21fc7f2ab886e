import type { Quote } from "./quote-objects";
import type { Out } from "../../api/response-schema";
import { DocStore } from "../../engine/doc-store";
import type { AssetDefinition, AssetRegistry } from "../../money/assets";
import { formatAmount } from "../../money/amount";
import { priceImpact, type Pricing } from "../../quoting/order-pricer";
import { fromPricingRecord, type PricingRecord } from "../../quoting/pricing-record";
import { formatFraction, formatRate, venueSplit } from "../../quoting/quote-metrics";
import { isoTime, parseTimestamp } from "../../validation/timestamp";
import { type Metadata, presentMetadata } from "../../metadata/metadata";

/**
 * A quote as stored: the pricing it commits to (every figure of the quote object follows from
 * it), when it expires, and the swap that used it.
 */
export interface QuoteDoc {
  id: string;
  /** Asset codes converted from and to. */
  from: string;
  to: string;
  pricing: PricingRecord;
  /** Absent on documents written before metadata existed: none. */
  metadata?: Metadata;
  created: number;
  expiresAt: number;
  /** The swap that consumed the quote (a quote backs one swap only). */
  swap: string | null;
}

/** Shape 1 stored the quote object with an `internal` part. */
interface QuoteDocV1 {
  id: string;
  from: { asset: string };
  to: { asset: string };
  created: string;
  internal: { pricing: PricingRecord; expires_at_ms: number; swap: string | null };
}

export const QUOTES = new DocStore<QuoteDoc>({
  kind: "quote",
  version: 2,
  upgrade: (data) => {
    const v1 = data as unknown as QuoteDocV1;
    return {
      id: v1.id,
      from: v1.from.asset,
      to: v1.to.asset,
      pricing: v1.internal.pricing,
      created: parseTimestamp(v1.created)!,
      expiresAt: v1.internal.expires_at_ms,
      swap: v1.internal.swap,
    };
  },
  status: (q) => (q.swap ? "used" : "open"),
  reference: () => null,
});

/** The quote object of the seed, plus `approximate` (research §11.6). */
export type QuoteObject = Out<typeof Quote>;

/** The quote's figures from a pricing, in display units. */
export function quoteFigures(pricing: Omit<Pricing, "continuous">, from: AssetDefinition, to: AssetDefinition) {
  return {
    from: { asset: from.code, amount: formatAmount(pricing.amountIn, from) },
    to: { asset: to.code, amount: formatAmount(pricing.netOut, to) },
    rate: formatRate(pricing.netOut, pricing.amountIn, from, to),
    price_impact: formatFraction(priceImpact(pricing)),
    network_fee: formatAmount(pricing.networkFee, to),
    platform_fee: formatAmount(pricing.platformFee, to),
    venues: venueSplit(pricing.legs).map((v) => ({
      name: v.name,
      weight: v.weight,
      from_amount: formatAmount(v.amountIn, from),
      to_amount: formatAmount(v.amountOut, to),
    })),
    approximate: pricing.approximate,
  };
}

export function presentQuote(assets: AssetRegistry, q: QuoteDoc): QuoteObject {
  return {
    id: q.id,
    object: "quote",
    ...quoteFigures(fromPricingRecord(q.pricing), assets.get(q.from)!, assets.get(q.to)!),
    metadata: presentMetadata(q.metadata),
    created: isoTime(q.created),
    expires_at: isoTime(q.expiresAt),
  };
}

import type { Pricing } from "./order-pricer";

/**
 * A pricing as stored inside a resource document (JSON: base units as decimal strings). It is
 * what an execution replays: the legs, their quoted outputs as minimums, and the fees.
 */
export interface PricingRecord {
  amount_in: string;
  legs: { venue: string; amount_in: string; amount_out: string; network_cost: string }[];
  gross_out: string;
  network_fee: string;
  platform_fee: string;
  net_out: string;
  best_rate: { num: string; den: string };
  approximate: boolean;
  /** When the snapshots were taken (epoch ms). */
  priced_at: number;
}

export function toPricingRecord(p: Omit<Pricing, "continuous">, pricedAt: number): PricingRecord {
  return {
    amount_in: p.amountIn.toString(),
    legs: p.legs.map((l) => ({
      venue: l.venue,
      amount_in: l.amountIn.toString(),
      amount_out: l.amountOut.toString(),
      network_cost: l.networkCost.toString(),
    })),
    gross_out: p.grossOut.toString(),
    network_fee: p.networkFee.toString(),
    platform_fee: p.platformFee.toString(),
    net_out: p.netOut.toString(),
    best_rate: { num: p.bestRate.num.toString(), den: p.bestRate.den.toString() },
    approximate: p.approximate,
    priced_at: pricedAt,
  };
}

/** A stored pricing's amounts as bigints. */
export interface StoredPricing extends Omit<Pricing, "continuous"> {
  pricedAt: number;
}

export function fromPricingRecord(r: PricingRecord): StoredPricing {
  return {
    amountIn: BigInt(r.amount_in),
    legs: r.legs.map((l) => ({
      venue: l.venue,
      amountIn: BigInt(l.amount_in),
      amountOut: BigInt(l.amount_out),
      networkCost: BigInt(l.network_cost),
    })),
    grossOut: BigInt(r.gross_out),
    networkFee: BigInt(r.network_fee),
    platformFee: BigInt(r.platform_fee),
    netOut: BigInt(r.net_out),
    bestRate: { num: BigInt(r.best_rate.num), den: BigInt(r.best_rate.den) },
    approximate: r.approximate,
    pricedAt: r.priced_at,
  };
}

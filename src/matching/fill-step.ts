import { type OrderPricer, priceImpact, type Pricing } from "../quoting/order-pricer";
import type { Ratio } from "../quoting/venue-curves";

/** What a limit order asks of a fill, in base units. */
export interface OrderTerms {
  /** Input not yet filled. */
  remaining: bigint;
  /** What the order's reservations still hold (read under their locks at each fill). */
  reserved: bigint;
  partialFills: boolean;
  /** Minimum net output per input, base units, after every fee and rounding. */
  target: Ratio;
  /** Largest price impact one fill may have, or null. */
  maxSlippage: Ratio | null;
  /** The order may fill while `now <= expiresAt` (research §5.2: valid through its expiry). */
  expiresAt: number;
}

export type MatchDecision =
  | { kind: "fill"; pricing: Pricing }
  | { kind: "wait"; reason: "no_funds" | "below_target" | "no_feasible_size" }
  | { kind: "expired" };

/**
 * Whether a priced fill respects the order: net output positive and at least `target` per input
 * (exact integers, after all fees and rounding: research §5.2), and price impact within
 * `maxSlippage` when set.
 */
export function respectsTerms(p: Pick<Pricing, "amountIn" | "grossOut" | "netOut" | "bestRate">, terms: Pick<OrderTerms, "target" | "maxSlippage">): boolean {
  if (p.netOut <= 0n) return false;
  if (p.netOut * terms.target.den < p.amountIn * terms.target.num) return false;
  if (terms.maxSlippage) {
    const impact = priceImpact(p);
    if (impact.num * terms.maxSlippage.den > terms.maxSlippage.num * impact.den) return false;
  }
  return true;
}

/**
 * One matching step of a limit order against the venues' current state (research §5.2):
 * expired after `expiresAt`; all-or-nothing fills the whole remainder or waits; a partially
 * fillable order takes the largest tranche that still respects its terms.
 *
 * The tranche search: the whole remainder if it qualifies; else halving from it until a size
 * qualifies (the feasible sizes form one interval, research §5.2), then binary search between
 * that size and the last that did not for the largest that does. The scan stops once the net
 * rate stops improving as the size shrinks (past the peak of `net(a)/a`) without qualifying.
 * Every returned fill was checked exactly by `respectsTerms`, so no fill is ever worse than the
 * target, whatever the search assumed.
 */
export function matchStep(terms: OrderTerms, pricer: OrderPricer, now: number): MatchDecision {
  if (now > terms.expiresAt) return { kind: "expired" };
  const available = terms.reserved < terms.remaining ? terms.reserved : terms.remaining;
  if (available <= 0n || (!terms.partialFills && terms.reserved < terms.remaining)) return { kind: "wait", reason: "no_funds" };
  // No size can beat the best zero-size rate less the platform fee: most steps end here.
  const r0 = pricer.bestRate;
  if (r0.num * (10_000n - pricer.platformFeeBps) * terms.target.den < terms.target.num * r0.den * 10_000n) {
    return { kind: "wait", reason: "below_target" };
  }
  const priced = (a: bigint): Pricing | null => {
    const p = pricer.price(a);
    return p.isOk() ? p.value : null;
  };
  const qualifies = (p: Pricing | null): boolean => p !== null && respectsTerms(p, terms);

  const whole = priced(terms.partialFills ? available : terms.remaining);
  if (whole && qualifies(whole)) return { kind: "fill", pricing: whole };
  if (!terms.partialFills) return { kind: "wait", reason: "below_target" };

  let above = available; // a size that does not qualify
  let aboveRate = whole;
  for (let a = available / 2n; a >= 1n; a /= 2n) {
    const p = priced(a);
    if (p && qualifies(p)) return { kind: "fill", pricing: largestBetween(a, p, above, priced, qualifies) };
    // Rate failing while the rate got no better than at the larger size: past the peak.
    const rateFails = p === null || p.netOut * terms.target.den < p.amountIn * terms.target.num;
    if (rateFails && !betterRate(p, aboveRate)) break;
    above = a;
    aboveRate = p;
  }
  return { kind: "wait", reason: "no_feasible_size" };
}

/** Binary search for the largest qualifying size in [low, high), knowing low does. */
function largestBetween(
  low: bigint,
  lowPricing: Pricing,
  high: bigint,
  priced: (a: bigint) => Pricing | null,
  qualifies: (p: Pricing | null) => boolean,
): Pricing {
  let best = lowPricing;
  let lo = low;
  let hi = high;
  while (hi - lo > 1n) {
    const mid = lo + (hi - lo) / 2n;
    const p = priced(mid);
    if (p && qualifies(p)) {
      lo = mid;
      best = p;
    } else {
      hi = mid;
    }
  }
  return best;
}

/** Net output per input of `a` strictly above `b`'s (a missing pricing is the worst). */
function betterRate(a: Pricing | null, b: Pricing | null): boolean {
  if (!a || a.netOut <= 0n) return false;
  if (!b || b.netOut <= 0n) return true;
  return a.netOut * b.amountIn > b.netOut * a.amountIn;
}

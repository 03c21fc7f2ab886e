import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../errors";
import { divCeil } from "../money/rounding";
import type { VenueSnapshot } from "../ports/venue";
import { integerLegs } from "./integer-split";
import { chooseSplit, splitModel, type ContinuousSolution, type SplitModel } from "./split-solver";
import { bestZeroSizeRate, venueOut, type Ratio } from "./venue-curves";

/** One venue's share of an order, priced exactly. */
export interface PricedLeg {
  venue: string;
  amountIn: bigint;
  /** What the venue delivers for `amountIn`, after its own fee (exact integer formula). */
  amountOut: bigint;
  /** The venue's fixed cost, charged because the leg uses it. */
  networkCost: bigint;
}

/**
 * An order priced across venues (research §4): integer legs summing exactly to `amountIn`,
 * their exact outputs, and the fees. `netOut = grossOut − networkFee − platformFee`.
 */
export interface Pricing {
  amountIn: bigint;
  /** Venues with a positive leg, in venue-name order. */
  legs: PricedLeg[];
  grossOut: bigint;
  /** Fixed costs of the venues used, output base units. */
  networkFee: bigint;
  /** `platformFeeBps` of `grossOut`, rounded up (what the user pays rounds up). */
  platformFee: bigint;
  netOut: bigint;
  /** r0: the best zero-size rate net of venue fees, over every venue offered (research §4). */
  bestRate: Ratio;
  /** A heuristic chose the venues (research §3.4, more than 12 with a fixed cost). */
  approximate: boolean;
  /** The continuous solution behind the legs, for the tests' optimality certificate. */
  continuous: ContinuousSolution;
}

/**
 * Prices orders of any size against one set of venue snapshots: the model is built once, so a
 * limit-order search can price many sizes cheaply. Snapshots come sorted by venue name.
 */
export class OrderPricer {
  private readonly model: SplitModel;
  readonly bestRate: Ratio;

  constructor(
    readonly venues: readonly VenueSnapshot[],
    readonly platformFeeBps: bigint,
  ) {
    if (venues.length === 0) throw new RangeError("OrderPricer needs at least one venue");
    this.model = splitModel(venues);
    this.bestRate = bestZeroSizeRate(venues);
  }

  /**
   * Prices selling `amount` base units: `insufficient_liquidity` when the venues cannot absorb
   * it. A net output of zero or less is returned as is; callers decide (a quote refuses it).
   */
  price(amount: bigint): Result<Pricing, ApiError> {
    if (amount <= 0n) throw new RangeError("price: amount must be positive");
    const chosen = chooseSplit(this.model, amount);
    if (!chosen) {
      return fail("insufficient_liquidity", "The venues do not hold enough liquidity for this amount", {
        param: "from.amount",
      });
    }
    let legAmounts: bigint[];
    try {
      legAmounts = integerLegs(amount, this.venues, chosen.solution);
    } catch (e) {
      // Rounding left units no allowed venue can take: the order sits at the venues' very depth.
      if (e instanceof RangeError) return err(new ApiError("insufficient_liquidity", e.message, { param: "from.amount" }));
      throw e;
    }
    return ok({
      ...this.priceLegs(amount, legAmounts),
      bestRate: this.bestRate,
      approximate: chosen.approximate,
      continuous: chosen.solution,
    });
  }

  /**
   * Exact outputs and fees of given integer legs (one per venue, in snapshot order), however
   * they were chosen: the optimal split above, or a baseline router's in the bench.
   */
  priceLegs(amount: bigint, legAmounts: readonly bigint[]): Omit<Pricing, "bestRate" | "approximate" | "continuous"> {
    const legs: PricedLeg[] = [];
    let grossOut = 0n;
    let networkFee = 0n;
    this.venues.forEach((venue, i) => {
      const amountIn = legAmounts[i]!;
      if (amountIn === 0n) return;
      const amountOut = venueOut(venue, amountIn);
      legs.push({ venue: venue.venue, amountIn, amountOut, networkCost: venue.networkCost });
      grossOut += amountOut;
      networkFee += venue.networkCost;
    });
    const platformFee = divCeil(grossOut * this.platformFeeBps, 10_000n);
    return { amountIn: amount, legs, grossOut, networkFee, platformFee, netOut: grossOut - networkFee - platformFee };
  }
}

/**
 * price_impact as an exact fraction: `1 − grossOut / (amountIn · r0)` (research §4), in
 * [0, 1). With it the identity `netOut = A·r0·(1 − impact) − platformFee − networkFee` holds
 * exactly.
 */
export function priceImpact(p: Pick<Pricing, "amountIn" | "grossOut" | "bestRate">): Ratio {
  const den = p.amountIn * p.bestRate.num;
  return { num: den - p.grossOut * p.bestRate.den, den };
}

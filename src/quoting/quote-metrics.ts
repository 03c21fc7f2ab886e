import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";
import type { AssetDefinition } from "../money/assets";
import { formatUnits } from "../money/amount";
import { allocate } from "../money/rounding";
import type { PricedLeg } from "./order-pricer";
import type { Ratio } from "./venue-curves";

/** docs/decisions.md §1: rates and impacts carry up to 18 decimals, rounded down. */
export const RATE_DECIMALS = 18;
/** docs/decisions.md §1: weights carry 6 decimals and sum to exactly 1. */
export const WEIGHT_DECIMALS = 6;

const RATE_SCALE = 10n ** BigInt(RATE_DECIMALS);

/**
 * Output per input in whole units (what the API calls a rate), from base units:
 * `(out / 10^dY) / (in / 10^dX)`, rounded down at 18 decimals.
 */
export function formatRate(out: bigint, amountIn: bigint, from: AssetDefinition, to: AssetDefinition): string {
  const num = out * 10n ** BigInt(from.decimals) * RATE_SCALE;
  const den = amountIn * 10n ** BigInt(to.decimals);
  return formatUnits(num / den, RATE_DECIMALS);
}

/** A fraction in [0, 1) such as price_impact, rounded down at 18 decimals. */
export function formatFraction(value: Ratio): string {
  return formatUnits((value.num * RATE_SCALE) / value.den, RATE_DECIMALS);
}

/**
 * A decimal string from the API as an exact fraction, refusing more than 18 decimals (rates and
 * fractions carry at most that many, docs/decisions.md §1).
 */
export function parseFraction(text: string, param: string): Result<Ratio, ApiError> {
  const [whole, fraction = ""] = text.split(".") as [string, string?];
  if (fraction.length > RATE_DECIMALS) {
    return fail("parameter_invalid", `${param} carries at most ${RATE_DECIMALS} decimals`, { param });
  }
  return ok({ num: BigInt(whole + fraction), den: 10n ** BigInt(fraction.length) });
}

/** A fraction from 0 to 1 such as a slippage ceiling, exactly; `parameter_invalid` above 1. */
export function parseSlippage(text: string, param: string): Result<Ratio, ApiError> {
  const r = parseFraction(text, param);
  if (r.isOk() && r.value.num > r.value.den) return fail("parameter_invalid", `${param} must be at most 1`, { param });
  return r;
}

/** A rate in whole units (`to` per `from`) as an exact fraction of base units. */
export function baseUnitRate(rate: Ratio, from: AssetDefinition, to: AssetDefinition): Ratio {
  return { num: rate.num * 10n ** BigInt(to.decimals), den: rate.den * 10n ** BigInt(from.decimals) };
}

export interface VenueShare {
  name: string;
  weight: string;
  /** The venue's leg: base units it sells and what it delivers (before the quote's fees). */
  amountIn: bigint;
  amountOut: bigint;
}

/**
 * The quote's `venues`, the split: every venue the order uses with its leg's amounts, and its
 * share of the input with 6 decimals, by largest remainder so the weights sum to exactly 1, each
 * within 0.000001 of its exact share (research §4). A sliver under half a millionth of the input
 * shows weight 0 (its amounts still count: they sum to the order's). The order is weight
 * descending, then name.
 */
export function venueSplit(legs: readonly PricedLeg[]): VenueShare[] {
  if (legs.length === 0) return [];
  const scale = 10n ** BigInt(WEIGHT_DECIMALS);
  const parts = allocate(
    scale,
    legs.map((l) => l.amountIn),
  );
  return legs
    .map((leg, i) => ({ leg, units: parts[i]! }))
    .sort((a, b) => (a.units === b.units ? (a.leg.venue < b.leg.venue ? -1 : a.leg.venue > b.leg.venue ? 1 : 0) : a.units > b.units ? -1 : 1))
    .map(({ leg, units }) => ({ name: leg.venue, weight: formatUnits(units, WEIGHT_DECIMALS), amountIn: leg.amountIn, amountOut: leg.amountOut }));
}

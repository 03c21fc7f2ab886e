import { Decimal, isDecimalString } from "../money/decimal";
import type { VenueAdapter } from "../ports/venue";
import { bestZeroSizeRate, type Ratio } from "./venue-curves";
import { VenueSet } from "./venue-set";

/**
 * What one base unit of `from` (a chain's gas asset) is worth in base units of `to` (a payout
 * asset), or null when it cannot be priced. Chain adapters use it to state a leg's network fee
 * in the payout asset (docs/decisions.md §9).
 */
export type GasPricer = (from: string, to: string) => Promise<Ratio | null>;

/**
 * Prices through the engine's venues: the best zero-size rate of selling `from` into `to`
 * (research §4's r0, net of the venue's fee), or null when no venue trades the pair or the
 * venues cannot be read.
 */
export function venueGasPricer(venues: readonly VenueAdapter[] | VenueSet): GasPricer {
  const set = venues instanceof VenueSet ? venues : new VenueSet(venues);
  return async (from, to) => {
    try {
      const snapshots = await set.snapshots(from, to);
      return snapshots.length ? bestZeroSizeRate(snapshots) : null;
    } catch {
      return null;
    }
  };
}

/**
 * A configured price (`"3000"`: one whole `from` is worth 3000 whole `to`) as a ratio of base
 * units, given the two assets' decimals. Throws on a malformed price (a host's config error).
 */
export function ratioOfPrice(price: string, fromDecimals: number, toDecimals: number): Ratio {
  if (!isDecimalString(price) || new Decimal(price).lte("0")) throw new TypeError(`a price must be a positive decimal, got ${price}`);
  const [whole, fraction = ""] = price.split(".");
  const num = BigInt(whole! + fraction) * 10n ** BigInt(toDecimals);
  const den = 10n ** BigInt(fraction.length) * 10n ** BigInt(fromDecimals);
  return { num, den };
}

import { AdapterError } from "../errors";
import { divCeil } from "../money/rounding";
import type { BookSnapshot, PoolHop, RouteSnapshot, VenueSnapshot } from "../ports/venue";

/** Fees of the venue port are parts per million. */
export const FEE_SCALE = 1_000_000n;

/** An exact non-negative rational; rates are compared by cross-multiplication, never divided. */
export interface Ratio {
  num: bigint;
  den: bigint;
}

/** a ≥ b for non-negative rationals. */
export function ratioGte(a: Ratio, b: Ratio): boolean {
  return a.num * b.den >= b.num * a.den;
}

/**
 * Uniswap v2's exact-in output with the fee generalised to ppm (research §2.1): integer
 * division, so the output is rounded down, and it is always below the output reserve.
 */
export function poolOut(pool: PoolHop, amountIn: bigint): bigint {
  if (amountIn <= 0n) return 0n;
  const inWithFee = amountIn * (FEE_SCALE - pool.feePpm);
  return (inWithFee * pool.reserveOut) / (pool.reserveIn * FEE_SCALE + inWithFee);
}

/**
 * A route's output: each hop's pool formula in turn, each rounded down, as Uniswap v2's router
 * computes `getAmountsOut` (research §2.1 per hop).
 */
export function routeOut(route: RouteSnapshot, amountIn: bigint): bigint {
  let amount = amountIn;
  for (const hop of route.hops) amount = poolOut(hop, amount);
  return amount;
}

/**
 * The one constant-product pool a route behaves as on the real line: composing
 * `γ₁·a·y₁/(x₁+γ₁·a)` with the next hop `γ₂·b·y₂/(x₂+γ₂·b)` gives `γ₁·a·Y/(X+γ₁·a)` with
 * `X = x₁·x₂/(x₂+γ₂·y₁)` and `Y = γ₂·y₁·y₂/(x₂+γ₂·y₁)`, folded hop by hop. The split solver uses
 * it to decide proportions (floats, never money); amounts come from `routeOut`, exactly.
 */
export function equivalentPool(route: RouteSnapshot): { x: number; y: number; gamma: number } {
  const F = Number(FEE_SCALE);
  const [first, ...rest] = route.hops;
  let x = Number(first!.reserveIn);
  let y = Number(first!.reserveOut);
  for (const hop of rest) {
    const x2 = Number(hop.reserveIn);
    const y2 = Number(hop.reserveOut);
    const g2 = (F - Number(hop.feePpm)) / F;
    const d = x2 + g2 * y;
    x = (x * x2) / d;
    y = (g2 * y * y2) / d;
  }
  return { x, y, gamma: (F - Number(first!.feePpm)) / F };
}

/** Everything a book can take, in input base units. */
export function bookDepth(book: BookSnapshot): bigint {
  let depth = 0n;
  for (const level of book.levels) depth += level.capacityIn;
  return depth;
}

/**
 * Walks the book from its best level (research §2.2): each level's output is rounded down,
 * then the taker fee on the total is rounded up. Refuses more input than the book holds.
 */
export function bookOut(book: BookSnapshot, amountIn: bigint): bigint {
  if (amountIn <= 0n) return 0n;
  let left = amountIn;
  let gross = 0n;
  for (const level of book.levels) {
    const taken = left < level.capacityIn ? left : level.capacityIn;
    gross += (taken * level.rateNum) / level.rateDen;
    left -= taken;
    if (left === 0n) break;
  }
  if (left > 0n) throw new RangeError(`${book.venue}: ${amountIn} exceeds the book's depth`);
  return gross - divCeil(gross * book.takerFeePpm, FEE_SCALE);
}

/** The exact output of one leg, after the venue's own fee and before network or platform fees. */
export function venueOut(venue: VenueSnapshot, amountIn: bigint): bigint {
  return venue.kind === "pool" ? poolOut(venue, amountIn) : venue.kind === "route" ? routeOut(venue, amountIn) : bookOut(venue, amountIn);
}

/** The most input a venue can take: unbounded (null) for a pool or a route, the depth for a book. */
export function venueCapacity(venue: VenueSnapshot): bigint | null {
  return venue.kind === "book" ? bookDepth(venue) : null;
}

/**
 * The zero-size rate net of the venue's fee (research §2: s = γ·y/x for a pool, the product of
 * its hops' for a route, the best level less the taker fee for a book), as an exact fraction of
 * base units.
 */
export function zeroSizeRate(venue: VenueSnapshot): Ratio {
  if (venue.kind === "pool") {
    return { num: (FEE_SCALE - venue.feePpm) * venue.reserveOut, den: FEE_SCALE * venue.reserveIn };
  }
  if (venue.kind === "route") {
    let rate: Ratio = { num: 1n, den: 1n };
    for (const hop of venue.hops) {
      rate = { num: rate.num * (FEE_SCALE - hop.feePpm) * hop.reserveOut, den: rate.den * FEE_SCALE * hop.reserveIn };
    }
    return rate;
  }
  const best = venue.levels[0]!;
  return { num: best.rateNum * (FEE_SCALE - venue.takerFeePpm), den: best.rateDen * FEE_SCALE };
}

/** r0: the best zero-size rate over all venues (research §4), the reference of price impact. */
export function bestZeroSizeRate(venues: readonly VenueSnapshot[]): Ratio {
  let best: Ratio | null = null;
  for (const venue of venues) {
    const rate = zeroSizeRate(venue);
    if (best === null || !ratioGte(best, rate)) best = rate;
  }
  if (best === null) throw new RangeError("no venues");
  return best;
}

/**
 * The largest base-unit value a snapshot may hold. Far above any real supply (amounts are capped
 * at 10^38), and low enough that the solver's floats stay finite (products of two stay below
 * 10^308).
 */
export const MAX_VENUE_UNITS = 10n ** 60n;

/** The longest route a snapshot may describe (a router's path of four pools). */
export const MAX_ROUTE_HOPS = 4;

/**
 * Checks a snapshot against the port's documented shape, so the solver can trust it. A broken
 * adapter is a programmer error: it fails loudly, naming the adapter.
 */
export function checkSnapshot(adapter: string, venue: VenueSnapshot): void {
  const bad = (why: string) => {
    throw new AdapterError(adapter, "snapshot", new Error(`venue ${String(venue.venue)}: ${why}`));
  };
  const huge = (...values: bigint[]) => values.some((v) => v > MAX_VENUE_UNITS);
  if (typeof venue.venue !== "string" || venue.venue === "") bad("a venue needs a name");
  if (typeof venue.networkCost !== "bigint" || venue.networkCost < 0n) bad("networkCost must be a bigint >= 0");
  const checkPool = (pool: PoolHop) => {
    if (typeof pool.reserveIn !== "bigint" || typeof pool.reserveOut !== "bigint") bad("reserves must be bigints");
    if (pool.reserveIn <= 0n || pool.reserveOut <= 0n) bad("reserves must be positive");
    if (huge(pool.reserveIn, pool.reserveOut, venue.networkCost)) bad("values above 10^60 base units");
    if (typeof pool.feePpm !== "bigint" || pool.feePpm < 0n || pool.feePpm >= FEE_SCALE) bad("feePpm out of range");
  };
  if (venue.kind === "pool") {
    checkPool(venue);
  } else if (venue.kind === "route") {
    if (!Array.isArray(venue.hops) || venue.hops.length < 2 || venue.hops.length > MAX_ROUTE_HOPS) bad(`a route has 2 to ${MAX_ROUTE_HOPS} hops`);
    for (const hop of venue.hops) checkPool(hop);
  } else if (venue.kind === "book") {
    if (!Array.isArray(venue.levels) || venue.levels.length === 0) bad("a book needs at least one level");
    if (typeof venue.takerFeePpm !== "bigint" || venue.takerFeePpm < 0n || venue.takerFeePpm >= FEE_SCALE) {
      bad("takerFeePpm out of range");
    }
    let previous: Ratio | null = null;
    for (const level of venue.levels) {
      if (typeof level.rateNum !== "bigint" || typeof level.rateDen !== "bigint" || typeof level.capacityIn !== "bigint") {
        bad("levels hold bigints");
      }
      if (level.rateNum <= 0n || level.rateDen <= 0n || level.capacityIn <= 0n) bad("levels must be positive");
      if (huge(level.rateNum, level.rateDen, level.capacityIn, venue.networkCost)) bad("values above 10^60 base units");
      const rate = { num: level.rateNum, den: level.rateDen };
      if (previous && !ratioGte(previous, rate)) bad("levels must be best first");
      previous = rate;
    }
  } else {
    bad("kind must be pool, book or route");
  }
}

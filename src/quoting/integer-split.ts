import { allocate } from "../money/rounding";
import type { BookSnapshot, VenueSnapshot } from "../ports/venue";
import type { ContinuousSolution } from "./split-solver";
import { ratioGte } from "./venue-curves";

/**
 * Turns the continuous split into integer legs that sum exactly to `amount` (research §3.5).
 * Books take their consumed levels exactly (integers already) plus the floor of the partial
 * level; the pools share what is left by largest remainder in proportion to their real
 * allocations, so each pool's leg is within one unit of its real one. Only venues the
 * continuous solution uses receive anything: a unit of rounding never opens a venue (and its
 * fixed cost) the solution chose not to pay for. Returns one leg per venue, 0 for unused ones.
 */
export function integerLegs(amount: bigint, venues: readonly VenueSnapshot[], solution: ContinuousSolution): bigint[] {
  const legs = venues.map(() => 0n);
  let left = amount;
  venues.forEach((venue, i) => {
    if (venue.kind !== "book" || !(solution.allocations[i]! > 0)) return;
    const full = solution.fullLevels[i]!;
    let leg = 0n;
    for (let l = 0; l < full; l++) leg += venue.levels[l]!.capacityIn;
    const next = venue.levels[full];
    if (next && solution.partial[i]! > 0) {
      const part = BigInt(Math.floor(solution.partial[i]!));
      leg += part < next.capacityIn ? part : next.capacityIn;
    }
    if (leg > left) leg = left;
    legs[i] = leg;
    left -= leg;
  });
  if (left === 0n) return legs;

  // pools and routes: both unbounded, both shared by their real allocations
  const pools = venues.flatMap((v, i) => (v.kind !== "book" && solution.allocations[i]! > 0 ? [i] : []));
  if (pools.length > 0) {
    // Real allocations scaled to integers: the weights keep 2^-20 of a unit, far below one unit.
    const weights = pools.map((i) => BigInt(Math.round(solution.allocations[i]! * 2 ** 20)));
    const shares = weights.some((w) => w > 0n) ? allocate(left, weights) : pools.map((_, k) => (k === 0 ? left : 0n));
    pools.forEach((venue, k) => (legs[venue]! += shares[k]!));
    return legs;
  }
  // Books only, and flooring left a few units: pour them into the best levels still open.
  left = pourIntoBooks(venues, legs, left, (i) => solution.allocations[i]! > 0);
  if (left > 0n) left = pourIntoBooks(venues, legs, left, () => true);
  if (left > 0n) throw new RangeError("integer split: the venues cannot absorb the order");
  return legs;
}

function pourIntoBooks(venues: readonly VenueSnapshot[], legs: bigint[], amount: bigint, eligible: (i: number) => boolean): bigint {
  let left = amount;
  const open: { venue: number; level: number; room: bigint }[] = [];
  venues.forEach((venue, i) => {
    if (venue.kind !== "book" || !eligible(i)) return;
    let used = legs[i]!;
    venue.levels.forEach((level, l) => {
      const taken = used < level.capacityIn ? used : level.capacityIn;
      used -= taken;
      if (taken < level.capacityIn) open.push({ venue: i, level: l, room: level.capacityIn - taken });
    });
  });
  const rate = (o: { venue: number; level: number }) => {
    const level = (venues[o.venue] as BookSnapshot).levels[o.level]!;
    return { num: level.rateNum, den: level.rateDen };
  };
  open.sort((a, b) => {
    const ra = rate(a);
    const rb = rate(b);
    if (!ratioGte(ra, rb)) return 1;
    if (!ratioGte(rb, ra)) return -1;
    return a.venue - b.venue || a.level - b.level;
  });
  for (const o of open) {
    if (left === 0n) break;
    const take = left < o.room ? left : o.room;
    legs[o.venue]! += take;
    left -= take;
  }
  return left;
}

import type { VenueSnapshot } from "../ports/venue";
import { venueCapacity, venueOut } from "./venue-curves";

/**
 * The percent-grid split public routers use (research §1): every venue takes a multiple of
 * `percent` of the order (Uniswap's smart-order-router defaults to 5 %), chosen exactly on that
 * grid by 1inch OneSplit's knapsack (research §1.2), which also handles a fixed cost per venue;
 * the rounding remainder goes to the largest leg (Uniswap's fix-up). Not used to quote: it is
 * the baseline the bench and the tests hold the exact split against.
 */
export function gridSplit(amount: bigint, venues: readonly VenueSnapshot[], percent = 5): bigint[] {
  const parts = Math.round(100 / percent);
  const chunk = (k: number) => (amount * BigInt(k)) / BigInt(parts);
  // value[i][k]: what venue i delivers for k parts, less its fixed cost; null when it cannot.
  const value = venues.map((venue) => {
    const cap = venueCapacity(venue);
    return Array.from({ length: parts + 1 }, (_, k) => {
      if (k === 0) return 0n;
      const a = chunk(k);
      if (a === 0n) return 0n;
      if (cap !== null && a > cap) return null;
      return venueOut(venue, a) - venue.networkCost;
    });
  });
  // best[j]: the best total over the venues so far using j parts; choice[i][j]: parts given to i.
  let best: (bigint | null)[] = Array.from({ length: parts + 1 }, (_, j) => (j === 0 ? 0n : null));
  const choice: number[][] = [];
  venues.forEach((_, i) => {
    const next: (bigint | null)[] = best.slice();
    const taken = Array.from({ length: parts + 1 }, () => 0);
    for (let j = 1; j <= parts; j++) {
      for (let k = 1; k <= j; k++) {
        const before = best[j - k];
        const here = value[i]![k];
        if (before === null || before === undefined || here === null || here === undefined) continue;
        const total = before + here;
        if (next[j] === null || total > next[j]!) {
          next[j] = total;
          taken[j] = k;
        }
      }
    }
    choice.push(taken);
    best = next;
  });
  const legs = venues.map(() => 0n);
  if (best[parts] === null) return legs;
  let j = parts;
  for (let i = venues.length - 1; i >= 0; i--) {
    const k = choice[i]![j]!;
    legs[i] = chunk(k);
    j -= k;
  }
  const remainder = amount - legs.reduce((a, b) => a + b, 0n);
  let largest = -1;
  legs.forEach((leg, i) => {
    const cap = venueCapacity(venues[i]!);
    const fits = cap === null || leg + remainder <= cap;
    if (leg > 0n && fits && (largest < 0 || leg > legs[largest]!)) largest = i;
  });
  if (largest < 0) return venues.map(() => 0n);
  legs[largest]! += remainder;
  return legs;
}

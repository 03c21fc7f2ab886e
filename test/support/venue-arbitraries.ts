import fc from "fast-check";
import type { BookSnapshot, PoolSnapshot, RouteSnapshot, VenueSnapshot } from "../../src/ports/venue";

/**
 * Generators of venues after research §9: pools with reserves from 10^3 to 10^12 base units
 * and 0.05 %, 0.3 % or 1 % fees; books of 1 to 5 levels, best first; fixed costs that are
 * sometimes zero.
 */
export const poolArb = (fixedCost = true): fc.Arbitrary<Omit<PoolSnapshot, "venue">> =>
  fc.record({
    kind: fc.constant("pool" as const),
    reserveIn: fc.bigInt(1_000n, 1_000_000_000_000n),
    reserveOut: fc.bigInt(1_000n, 1_000_000_000_000n),
    feePpm: fc.constantFrom(500n, 3_000n, 10_000n),
    networkCost: fixedCost ? fc.oneof(fc.constant(0n), fc.bigInt(1n, 1_000_000n)) : fc.constant(0n),
  });

export const bookArb = (fixedCost = true): fc.Arbitrary<Omit<BookSnapshot, "venue">> =>
  fc
    .record({
      // rates as num / 10^6, drawn best first by subtracting non-negative steps
      best: fc.bigInt(1_000n, 5_000_000_000n),
      steps: fc.array(fc.bigInt(0n, 200_000n), { minLength: 0, maxLength: 4 }),
      caps: fc.array(fc.bigInt(1n, 1_000_000_000n), { minLength: 5, maxLength: 5 }),
      takerFeePpm: fc.constantFrom(0n, 500n, 1_000n, 2_000n),
      networkCost: fixedCost ? fc.oneof(fc.constant(0n), fc.bigInt(1n, 1_000_000n)) : fc.constant(0n),
    })
    .map(({ best, steps, caps, takerFeePpm, networkCost }) => {
      const levels = [{ rateNum: best, rateDen: 1_000_000n, capacityIn: caps[0]! }];
      let rate = best;
      steps.forEach((step, i) => {
        rate = rate - step > 1n ? rate - step : 1n;
        levels.push({ rateNum: rate, rateDen: 1_000_000n, capacityIn: caps[i + 1]! });
      });
      return { kind: "book" as const, levels, takerFeePpm, networkCost };
    });

/** Routes of 2 or 3 pools (a router's multi-hop path), each hop drawn like a pool. */
export const routeArb = (fixedCost = true): fc.Arbitrary<Omit<RouteSnapshot, "venue">> =>
  fc.record({
    kind: fc.constant("route" as const),
    hops: fc.array(
      fc.record({
        reserveIn: fc.bigInt(1_000n, 1_000_000_000_000n),
        reserveOut: fc.bigInt(1_000n, 1_000_000_000_000n),
        feePpm: fc.constantFrom(500n, 3_000n, 10_000n),
      }),
      { minLength: 2, maxLength: 3 },
    ),
    networkCost: fixedCost ? fc.oneof(fc.constant(0n), fc.bigInt(1n, 1_000_000n)) : fc.constant(0n),
  });

/** 1 to `max` venues named v0, v1, … (the order the engine sorts them in). */
export const venuesArb = (max: number, fixedCost = true): fc.Arbitrary<VenueSnapshot[]> =>
  fc
    .array(fc.oneof(poolArb(fixedCost), bookArb(fixedCost)), { minLength: 1, maxLength: max })
    .map((vs) => vs.map((v, i) => ({ ...v, venue: `v${i}` }) as VenueSnapshot));

export const amountArb = fc.bigInt(1n, 1_000_000_000n);

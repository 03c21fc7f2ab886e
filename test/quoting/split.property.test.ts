import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AssetDefinition } from "../../src/money/assets";
import type { VenueSnapshot } from "../../src/ports/venue";
import { gridSplit } from "../../src/quoting/grid-split";
import { OrderPricer, priceImpact } from "../../src/quoting/order-pricer";
import { platformFeeBps } from "../../src/resources/conversion";
import type { ModuleDeps } from "../../src/engine/context";
import { bookDepth, venueOut, zeroSizeRate } from "../../src/quoting/venue-curves";
import { amountArb, venuesArb } from "../support/venue-arbitraries";
import { quoteFigures } from "../../src/resources/quotes/quote-doc";

/**
 * Research §9, properties 1 to 11: the split against an independent brute force, and the
 * quote's figures. The brute force below shares no code with the solver: its own real-valued
 * curves, and golden-section search over every subset of venues (≤ 3 venues).
 */

/** A constant-product pool's real output. */
function realPoolOut(p: { reserveIn: bigint; reserveOut: bigint; feePpm: bigint }, a: number): number {
  const g = 1 - Number(p.feePpm) / 1e6;
  const x = Number(p.reserveIn);
  const y = Number(p.reserveOut);
  return (g * a * y) / (x + g * a);
}

/** A pool's marginal rate after taking `a`: the derivative of its real output. */
function realPoolMarginal(p: { reserveIn: bigint; reserveOut: bigint; feePpm: bigint }, a: number): number {
  const g = 1 - Number(p.feePpm) / 1e6;
  const x = Number(p.reserveIn);
  return (g * x * Number(p.reserveOut)) / (x + g * a) ** 2;
}

function realOut(v: VenueSnapshot, a: number): number {
  if (a <= 0) return 0;
  if (v.kind === "pool") return realPoolOut(v, a);
  if (v.kind === "route") return v.hops.reduce((amount, hop) => realPoolOut(hop, amount), a);
  let left = a;
  let out = 0;
  for (const l of v.levels) {
    const t = Math.min(left, Number(l.capacityIn));
    out += (t * Number(l.rateNum)) / Number(l.rateDen);
    left -= t;
    if (left <= 0) break;
  }
  return out * (1 - Number(v.takerFeePpm) / 1e6);
}

const capOf = (v: VenueSnapshot) => (v.kind === "book" ? Number(bookDepth(v)) : Infinity);
const kappa = (v: VenueSnapshot) => Number(v.networkCost);

/** Maximum of a concave function on [lo, hi] by golden-section search. */
function golden(f: (t: number) => number, lo: number, hi: number, iterations = 120): number {
  const r = (Math.sqrt(5) - 1) / 2;
  let a = lo;
  let b = hi;
  let c = b - r * (b - a);
  let d = a + r * (b - a);
  let fc_ = f(c);
  let fd = f(d);
  for (let i = 0; i < iterations && b - a > 0; i++) {
    if (fc_ < fd) {
      a = c;
      c = d;
      fc_ = fd;
      d = a + r * (b - a);
      fd = f(d);
    } else {
      b = d;
      d = c;
      fd = fc_;
      c = b - r * (b - a);
      fc_ = f(c);
    }
  }
  return Math.max(f(lo), f(hi), fc_, fd);
}

/** The best of output − fixed costs over every subset of venues; null when none can absorb A. */
function bruteForce(venues: readonly VenueSnapshot[], A: number): number | null {
  let best: number | null = null;
  const n = venues.length;
  for (let mask = 1; mask < 1 << n; mask++) {
    const u = venues.filter((_, i) => mask & (1 << i));
    const fixed = u.reduce((sum, v) => sum + kappa(v), 0);
    let value: number | null = null;
    if (u.length === 1) {
      if (capOf(u[0]!) >= A) value = realOut(u[0]!, A);
    } else if (u.length === 2) {
      const [p, q] = u as [VenueSnapshot, VenueSnapshot];
      const lo = Math.max(0, A - capOf(q));
      const hi = Math.min(A, capOf(p));
      if (lo <= hi) value = golden((t) => realOut(p, t) + realOut(q, A - t), lo, hi);
    } else {
      const [p, q, r] = u as [VenueSnapshot, VenueSnapshot, VenueSnapshot];
      const inner = (rest: number) => {
        const lo = Math.max(0, rest - capOf(r));
        const hi = Math.min(rest, capOf(q));
        return lo <= hi ? golden((t) => realOut(q, t) + realOut(r, rest - t), lo, hi, 80) : -Infinity;
      };
      const lo = Math.max(0, A - capOf(q) - capOf(r));
      const hi = Math.min(A, capOf(p));
      if (lo <= hi) value = golden((t) => realOut(p, t) + inner(A - t), lo, hi, 80);
    }
    if (value !== null && Number.isFinite(value) && (best === null || value - fixed > best)) best = value - fixed;
  }
  return best;
}

/** Our continuous split scored with the brute force's own curves. */
function ourScore(venues: readonly VenueSnapshot[], amounts: readonly number[]): number {
  return venues.reduce((sum, v, i) => sum + (amounts[i]! > 0 ? realOut(v, amounts[i]!) - kappa(v) : 0), 0);
}

/** Units an integer split may lose to rounding: a leg's unit at r0 and a floor per venue, a floor per book level. */
function roundingSlack(venues: readonly VenueSnapshot[], bestRate: { num: bigint; den: bigint }): number {
  const r0 = Number(bestRate.num) / Number(bestRate.den);
  const levels = venues.reduce((s, v) => s + (v.kind === "book" ? v.levels.length + 1 : 0), 0);
  // a route floors at every hop: a unit lost after hop h is worth the later hops' rate at the end
  const hops = venues.reduce((s, v) => {
    if (v.kind !== "route") return s;
    let later = 1;
    let slack = 0;
    for (let h = v.hops.length - 1; h >= 0; h--) {
      slack += later + 1;
      later *= Number(v.hops[h]!.reserveOut) / Number(v.hops[h]!.reserveIn);
    }
    return s + slack;
  }, 0);
  return venues.length * (r0 + 1) + levels + hops;
}

const priceOrNull = (venues: VenueSnapshot[], amount: bigint, bps = 0n) => {
  const p = new OrderPricer(venues, bps).price(amount);
  return p.isOk() ? p.value : null;
};

const ETH: AssetDefinition = { code: "ETH", decimals: 18, stablecoin: false, chains: ["base"] };
const USDC: AssetDefinition = { code: "USDC", decimals: 6, stablecoin: true, chains: ["base"] };

/**
 * fast-check settings for synchronous properties: a synchronous assert blocks vitest's timeout,
 * so a failure whose shrinking runs the brute force thousands of times is cut off after 30 s and
 * reported with the smallest counterexample found so far, instead of stalling the run.
 */
const bounded = (numRuns: number) => ({ numRuns, interruptAfterTimeLimit: 30_000, markInterruptAsFailure: true });

describe("the split (research §3)", () => {
  it("is within 1e-9 relative of a brute-force optimum, fixed costs included", () => {
    fc.assert(
      fc.property(venuesArb(3), amountArb, (venues, amount) => {
        const brute = bruteForce(venues, Number(amount));
        const priced = priceOrNull(venues, amount);
        if (brute === null) {
          expect(priced).toBeNull();
          return;
        }
        expect(priced).not.toBeNull();
        const ours = ourScore(venues, priced!.continuous.allocations);
        expect(brute - ours).toBeLessThanOrEqual(1e-9 * Math.abs(brute) + 1e-6);
      }),
      bounded(300),
    );
  });

  it("satisfies the KKT certificate without fixed costs", () => {
    fc.assert(
      fc.property(venuesArb(4, false), amountArb, (venues, amount) => {
        const priced = priceOrNull(venues, amount);
        fc.pre(priced !== null);
        const { lambda, allocations: amounts, fullLevels } = priced!.continuous;
        const tol = 1e-9;
        venues.forEach((v, i) => {
          if (v.kind === "pool") {
            const g = 1 - Number(v.feePpm) / 1e6;
            const x = Number(v.reserveIn);
            const y = Number(v.reserveOut);
            const marginal = (g * x * y) / (x + g * amounts[i]!) ** 2;
            // an active pool trades down to λ; an idle one (or one that took too little to tell,
            // at most a millionth of its reserve) is not above λ where its allocation leaves it,
            // as a route's check below (at its start, an allocation of a millionth of the reserve
            // is 2e-6 above λ: more than the tolerance)
            if (amounts[i]! > 1e-6 * x) expect(Math.abs(marginal - lambda) / lambda).toBeLessThanOrEqual(1e-6);
            else expect(marginal).toBeLessThanOrEqual(lambda * (1 + 1e-6) + 1e-300);
          } else if (v.kind === "route") {
            // the chain rule through the hops, with each hop's own real input
            let input = amounts[i]!;
            let marginal = 1;
            for (const hop of v.hops) {
              marginal *= realPoolMarginal(hop, input);
              input = realPoolOut(hop, input);
            }
            const x = Number(v.hops[0]!.reserveIn);
            if (amounts[i]! > 1e-6 * x) expect(Math.abs(marginal - lambda) / lambda).toBeLessThanOrEqual(1e-6);
            else expect(marginal).toBeLessThanOrEqual(lambda * (1 + 1e-6) + 1e-300);
          } else {
            v.levels.forEach((l, k) => {
              const rho = (Number(l.rateNum) / Number(l.rateDen)) * (1 - Number(v.takerFeePpm) / 1e6);
              if (k < fullLevels[i]!) expect(rho).toBeGreaterThanOrEqual(lambda * (1 - tol));
              if (k > fullLevels[i]!) expect(rho).toBeLessThanOrEqual(lambda * (1 + tol));
            });
          }
        });
      }),
      // found by a CI run: the one pool takes the whole amount, a millionth of its reserve
      { ...bounded(300), examples: [[[{ kind: "pool", reserveIn: 2_000_000n, reserveOut: 1_000n, feePpm: 500n, networkCost: 0n, venue: "v0" }], 2n]] },
    );
  });

  it("has integer legs that sum exactly to the amount, within each venue's depth", () => {
    fc.assert(
      fc.property(venuesArb(6), amountArb, (venues, amount) => {
        const priced = priceOrNull(venues, amount);
        fc.pre(priced !== null);
        expect(priced!.legs.reduce((s, l) => s + l.amountIn, 0n)).toBe(amount);
        for (const leg of priced!.legs) {
          expect(leg.amountIn > 0n).toBe(true);
          const v = venues.find((x) => x.venue === leg.venue)!;
          if (v.kind === "book") expect(leg.amountIn <= bookDepth(v)).toBe(true);
          expect(leg.amountOut).toBe(venueOut(v, leg.amountIn));
        }
      }),
      bounded(400),
    );
  });

  it("loses at most a few units to integer rounding (research §9.5)", () => {
    fc.assert(
      fc.property(venuesArb(3), amountArb, (venues, amount) => {
        const brute = bruteForce(venues, Number(amount));
        const priced = priceOrNull(venues, amount);
        fc.pre(brute !== null && priced !== null);
        const integerScore = Number(priced!.grossOut) - Number(priced!.networkFee);
        const bound = roundingSlack(venues, priced!.bestRate) + 1e-9 * Math.abs(brute!);
        expect(brute! - integerScore).toBeLessThanOrEqual(bound);
      }),
      bounded(300),
    );
  });

  it("is never worse than the 5 %-grid split on the same venues (research §1.1)", () => {
    fc.assert(
      fc.property(venuesArb(5), amountArb, (venues, amount) => {
        const pricer = new OrderPricer(venues, 0n);
        const ours = pricer.price(amount);
        fc.pre(ours.isOk());
        const grid = gridSplit(amount, venues);
        fc.pre(grid.reduce((s, x) => s + x, 0n) === amount);
        const theirs = pricer.priceLegs(amount, grid);
        expect(Number(theirs.netOut - ours._unsafeUnwrap().netOut)).toBeLessThanOrEqual(roundingSlack(venues, pricer.bestRate));
      }),
      bounded(200),
    );
  });

  it("uses one pool alone when it is the only venue, and splits identical pools evenly", () => {
    fc.assert(
      fc.property(fc.bigInt(1_000n, 10n ** 12n), fc.bigInt(1_000n, 10n ** 12n), fc.integer({ min: 2, max: 4 }), amountArb, (x, y, n, amount) => {
        const pool = { kind: "pool" as const, reserveIn: x, reserveOut: y, feePpm: 3_000n, networkCost: 0n };
        const one = priceOrNull([{ ...pool, venue: "a" }], amount)!;
        expect(one.legs).toEqual([{ venue: "a", amountIn: amount, amountOut: venueOut({ ...pool, venue: "a" }, amount), networkCost: 0n }]);
        const many = priceOrNull(
          Array.from({ length: n }, (_, i) => ({ ...pool, venue: `p${i}` })),
          amount,
        )!;
        const sizes = many.legs.map((l) => l.amountIn);
        const even = amount / BigInt(n);
        for (const size of sizes) expect(size === even || size === even + 1n).toBe(true);
      }),
      bounded(200),
    );
  });

  it("beats every single venue net of its fixed cost (research §9.11)", () => {
    fc.assert(
      fc.property(venuesArb(5), amountArb, (venues, amount) => {
        const priced = priceOrNull(venues, amount);
        fc.pre(priced !== null);
        const ours = priced!.grossOut - priced!.networkFee;
        for (const v of venues) {
          if (v.kind === "book" && bookDepth(v) < amount) continue;
          const alone = venueOut(v, amount) - v.networkCost;
          expect(Number(alone - ours)).toBeLessThanOrEqual(roundingSlack(venues, priced!.bestRate));
        }
      }),
      bounded(300),
    );
  });
});

describe("the quote's figures (research §4)", () => {
  it("satisfy net = A·r0·(1 − impact) − platform_fee − network_fee exactly, with 0 ≤ impact < 1", () => {
    fc.assert(
      fc.property(venuesArb(5), amountArb, fc.bigInt(0n, 100n), (venues, amount, bps) => {
        const p = priceOrNull(venues, amount, bps);
        // a quote exists only with a positive net output (else no_route)
        fc.pre(p !== null && p.netOut > 0n);
        const impact = priceImpact(p!);
        // A·r0·(1 − impact) as a fraction: A·r0n/r0d · (den − num)/den
        const num = amount * p!.bestRate.num * (impact.den - impact.num);
        const den = p!.bestRate.den * impact.den;
        expect(num % den).toBe(0n);
        expect(num / den - p!.platformFee - p!.networkFee).toBe(p!.netOut);
        expect(impact.num >= 0n && impact.num < impact.den).toBe(true);
        // the effective rate never beats r0
        expect(p!.netOut * p!.bestRate.den <= amount * p!.bestRate.num).toBe(true);
        // r0 is the best zero-size rate of all venues offered
        for (const v of venues) {
          const s = zeroSizeRate(v);
          expect(s.num * p!.bestRate.den <= p!.bestRate.num * s.den).toBe(true);
        }
      }),
      bounded(300),
    );
  });

  it("show every leg with its amounts (summing to the order's) and weights that sum to exactly 1, each within 0.000001 of its share", () => {
    fc.assert(
      fc.property(venuesArb(6), amountArb, (venues, amount) => {
        const p = priceOrNull(venues, amount);
        fc.pre(p !== null && p.netOut > 0n);
        const figures = quoteFigures(p!, USDC, ETH);
        const micros = figures.venues.map((w) => BigInt(Math.round(Number(w.weight) * 1e6)));
        expect(micros.reduce((a, b) => a + b, 0n)).toBe(1_000_000n);
        expect(figures.venues.map((v) => v.name).sort()).toEqual(p!.legs.map((l) => l.venue).sort());
        const base = (v: string, decimals: number) => {
          const [i, f = ""] = v.split(".");
          return BigInt(i! + f.padEnd(decimals, "0"));
        };
        expect(figures.venues.reduce((sum, v) => sum + base(v.from_amount, USDC.decimals), 0n)).toBe(amount);
        expect(figures.venues.reduce((sum, v) => sum + base(v.to_amount, ETH.decimals), 0n)).toBe(p!.grossOut);
        for (const w of figures.venues) {
          expect(w.weight).toMatch(/^(1|0|0\.[0-9]{0,5}[1-9])$/);
          const leg = p!.legs.find((l) => l.venue === w.name)!;
          expect(base(w.from_amount, USDC.decimals)).toBe(leg.amountIn);
          expect(base(w.to_amount, ETH.decimals)).toBe(leg.amountOut);
          const exact = (Number(leg.amountIn) / Number(amount)) * 1e6;
          expect(Math.abs(Number(w.weight) * 1e6 - exact)).toBeLessThan(1 + 1e-6);
          if (w.weight === "0") expect(exact).toBeLessThan(0.5 + 1e-6); // only a sliver shows no weight
        }
        const sorted = [...figures.venues].sort((a, b) => Number(b.weight) - Number(a.weight) || (a.name < b.name ? -1 : 1));
        expect(figures.venues).toEqual(sorted);
      }),
      bounded(300),
    );
  });

  it("shows a rate no better than r0 and price impact that grows with size (1-unit wiggle)", () => {
    fc.assert(
      fc.property(venuesArb(4, false), fc.bigInt(1_000n, 1_000_000_000n), (venues, amount) => {
        const small = priceOrNull(venues, amount);
        const large = priceOrNull(venues, amount * 4n);
        fc.pre(small !== null && large !== null);
        const a = priceImpact(small!);
        const b = priceImpact(large!);
        // impact(A) <= impact(4A) + (#venues + levels) units of rounding relative to 4A·r0
        const slack = { num: BigInt(venues.length * 8 + 20) * large!.bestRate.den, den: amount * 4n * large!.bestRate.num };
        expect(a.num * b.den * slack.den <= (b.num * slack.den + slack.num * b.den) * a.den).toBe(true);
      }),
      bounded(200),
    );
  });

  it("charge no platform fee on stablecoin pairs, the configured fee otherwise", () => {
    const deps = { config: { platformFeeBps: 25 } } as ModuleDeps;
    const EURC: AssetDefinition = { ...USDC, code: "EURC" };
    expect(platformFeeBps(deps, USDC, EURC)).toBe(0n);
    expect(platformFeeBps(deps, USDC, ETH)).toBe(25n);
    expect(platformFeeBps(deps, ETH, USDC)).toBe(25n);
    fc.assert(
      fc.property(venuesArb(4), amountArb, (venues, amount) => {
        const p = priceOrNull(venues, amount, platformFeeBps(deps, USDC, EURC));
        fc.pre(p !== null);
        expect(p!.platformFee).toBe(0n);
        expect(quoteFigures(p!, USDC, EURC).platform_fee).toBe("0");
      }),
      bounded(100),
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchStep, respectsTerms, type OrderTerms } from "../../src/matching/fill-step";
import { divCeil } from "../../src/money/rounding";
import { OrderPricer, priceImpact } from "../../src/quoting/order-pricer";
import { venueOut } from "../../src/quoting/venue-curves";
import { amountArb, venuesArb } from "../support/venue-arbitraries";

/**
 * Research §9, properties 13 to 20, on the pure matching step: whatever the venues, a fill is
 * never worse than the target after all fees and rounding (recomputed here from the legs with
 * the venues' own formulas), all-or-nothing fills whole or not at all, nothing fills after
 * expiry, the slippage ceiling holds, and a partial fill is the largest that qualifies.
 */

const termsArb = fc.record({
  venues: venuesArb(4),
  amount: amountArb,
  /** reserved relative to the remainder: sometimes short (funds not there), usually all */
  reservedShare: fc.oneof(fc.constant(100n), fc.bigInt(0n, 100n)),
  /** target as r0 scaled by (10,000 − bps)/10,000: above the market sometimes */
  bps: fc.integer({ min: -100, max: 600 }),
  partialFills: fc.boolean(),
  slippage: fc.option(fc.bigInt(0n, 200n), { nil: null }),
  platformBps: fc.constantFrom(0n, 20n, 100n),
  late: fc.integer({ min: -5, max: 5 }),
});

type TermsInput = typeof termsArb extends fc.Arbitrary<infer T> ? T : never;

function build(input: TermsInput) {
  const pricer = new OrderPricer(input.venues, input.platformBps);
  const r0 = pricer.bestRate;
  const terms: OrderTerms = {
    remaining: input.amount,
    reserved: (input.amount * input.reservedShare) / 100n,
    partialFills: input.partialFills,
    target: { num: r0.num * BigInt(10_000 - input.bps), den: r0.den * 10_000n },
    maxSlippage: input.slippage === null ? null : { num: input.slippage, den: 1_000n },
    expiresAt: 1_000,
  };
  return { pricer, terms, now: 1_000 + input.late };
}

/**
 * fast-check settings for synchronous properties: a synchronous assert blocks vitest's timeout,
 * so a failure whose shrinking runs the brute force thousands of times is cut off after 30 s and
 * reported with the smallest counterexample found so far, instead of stalling the run.
 */
const bounded = (numRuns: number) => ({ numRuns, interruptAfterTimeLimit: 30_000, markInterruptAsFailure: true });

describe("the limit-order matching step (research §5.2)", () => {
  it("never fills worse than the target after all fees and rounding, nor beyond its funds, slippage or expiry", () => {
    fc.assert(
      fc.property(termsArb, (input) => {
        const { pricer, terms, now } = build(input);
        const decision = matchStep(terms, pricer, now);
        if (now > terms.expiresAt) {
          expect(decision.kind).toBe("expired");
          return;
        }
        if (decision.kind !== "fill") return;
        const p = decision.pricing;
        // recomputed independently from the legs
        const a = p.legs.reduce((s, l) => s + l.amountIn, 0n);
        expect(a).toBe(p.amountIn);
        let gross = 0n;
        let fixed = 0n;
        for (const leg of p.legs) {
          const v = input.venues.find((x) => x.venue === leg.venue)!;
          gross += venueOut(v, leg.amountIn);
          fixed += v.networkCost;
        }
        const net = gross - fixed - divCeil(gross * input.platformBps, 10_000n);
        expect(net).toBe(p.netOut);
        expect(net * terms.target.den >= a * terms.target.num).toBe(true);
        expect(a <= terms.remaining && a <= terms.reserved).toBe(true);
        if (!terms.partialFills) expect(a).toBe(terms.remaining);
        if (terms.maxSlippage) {
          const impact = priceImpact(p);
          expect(impact.num * terms.maxSlippage.den <= terms.maxSlippage.num * impact.den).toBe(true);
        }
      }),
      bounded(400),
    );
  });

  it("fills the largest tranche that qualifies: one unit more would not", () => {
    let partial = 0;
    const runs = 300;
    fc.assert(
      fc.property(termsArb, venuesArb(4, false), fc.bigInt(1_000_000n, 1_000_000_000_000n), fc.integer({ min: 1, max: 150 }), (input, venues, amount, bps) => {
        // large orders and targets just under r0: only part of the order qualifies
        const { pricer, terms, now } = build({ ...input, venues, amount, bps, partialFills: true, late: 0 });
        const decision = matchStep(terms, pricer, now);
        if (decision.kind !== "fill") return;
        const a = decision.pricing.amountIn;
        const limit = terms.reserved < terms.remaining ? terms.reserved : terms.remaining;
        if (a === limit) return;
        partial++;
        const more = pricer.price(a + 1n);
        expect(more.isOk() && respectsTerms(more.value, terms)).toBe(false);
      }),
      bounded(runs),
    );
    expect(partial).toBeGreaterThan(runs / 10);
  });

  it("fills an all-or-nothing order only whole, only with all its funds, and waits otherwise", () => {
    fc.assert(
      fc.property(termsArb, (input) => {
        const { pricer, terms, now } = build({ ...input, partialFills: false, late: 0 });
        const decision = matchStep(terms, pricer, now);
        const whole = pricer.price(terms.remaining);
        const qualifies = terms.reserved >= terms.remaining && whole.isOk() && respectsTerms(whole.value, terms);
        expect(decision.kind === "fill").toBe(qualifies);
        if (decision.kind === "fill") expect(decision.pricing.amountIn).toBe(terms.remaining);
      }),
      bounded(300),
    );
  });

  it("waits when even the best zero-size rate cannot reach the target", () => {
    fc.assert(
      fc.property(termsArb, (input) => {
        const { pricer, terms, now } = build({ ...input, bps: -1, late: 0 });
        expect(matchStep(terms, pricer, now).kind).toBe("wait");
      }),
      bounded(100),
    );
  });
});

import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { routePayout, transfersOf, type ChainCandidate, type Route } from "../../src/routing/payout-routing";

const NAMES = ["arbitrum", "base", "ethereum", "polygon", "solana", "bitcoin"];

/** Research §9 generators: F ∈ {0,1,2,5,20}, v ∈ {0,1,2} per unit, cap ∈ {∞,3,5}. */
const chainsArb = (maxChains: number, maxLiquidity: number, perUnit = true) =>
  fc.uniqueArray(
    fc.record({
      chain: fc.constantFrom(...NAMES),
      liquidity: fc.bigInt({ min: 0n, max: BigInt(maxLiquidity) }),
      fixed: fc.constantFrom(0n, 1n, 2n, 5n, 20n),
      proportionalPpm: perUnit ? fc.constantFrom(0n, 1_000_000n, 2_000_000n) : fc.bigInt({ min: 0n, max: 3_000_000n }),
      cap: fc.constantFrom<bigint | null>(null, 3n, 5n),
    }),
    { minLength: 1, maxLength: maxChains, selector: (c) => c.chain },
  );

function isRoute(r: ReturnType<typeof routePayout>): r is Route {
  return "legs" in r;
}

function perChain(route: Route): Map<string, bigint> {
  const m = new Map<string, bigint>();
  for (const leg of route.legs) m.set(leg.chain, (m.get(leg.chain) ?? 0n) + leg.amount);
  return m;
}

function feeOf(chains: readonly ChainCandidate[], allocation: readonly bigint[]): bigint {
  return chains.reduce((sum, c, i) => sum + transfersOf(c, allocation[i]!).reduce((s, l) => s + l.fee, 0n), 0n);
}

/** Every integer allocation of `amount` within the liquidities (small instances only). */
function* allocations(chains: readonly ChainCandidate[], amount: bigint, i = 0, acc: bigint[] = []): Generator<bigint[]> {
  if (i === chains.length) {
    if (amount === 0n) yield [...acc];
    return;
  }
  const top = chains[i]!.liquidity < amount ? chains[i]!.liquidity : amount;
  for (let x = 0n; x <= top; x++) yield* allocations(chains, amount - x, i + 1, [...acc, x]);
}

function bruteMin(chains: readonly ChainCandidate[], amount: bigint): bigint | null {
  let best: bigint | null = null;
  for (const a of allocations(chains, amount)) {
    const f = feeOf(chains, a);
    if (best === null || f < best) best = f;
  }
  return best;
}

describe("payout routing", () => {
  test.prop([chainsArb(6, 5_000), fc.bigInt({ min: 1n, max: 20_000n })])(
    "legs sum exactly to the amount, within each chain's liquidity and cap",
    (chains, amount) => {
      const r = routePayout({ amount, candidates: chains });
      const total = chains.reduce((s, c) => s + c.liquidity, 0n);
      if (!isRoute(r)) {
        expect(r.code).toBe("insufficient_liquidity");
        expect(total < amount).toBe(true);
        return;
      }
      expect(r.legs.reduce((s, l) => s + l.amount, 0n)).toBe(amount);
      expect(r.fee).toBe(r.legs.reduce((s, l) => s + l.fee, 0n));
      for (const [chain, x] of perChain(r)) {
        const c = chains.find((k) => k.chain === chain)!;
        expect(x <= c.liquidity).toBe(true);
      }
      for (const leg of r.legs) {
        const c = chains.find((k) => k.chain === leg.chain)!;
        expect(leg.amount > 0n).toBe(true);
        if (c.cap !== null) expect(leg.amount <= c.cap).toBe(true);
      }
    },
  );

  test.prop([chainsArb(3, 20), fc.bigInt({ min: 1n, max: 20n })], { numRuns: 300 })(
    "the fee equals the brute-force minimum over every integer allocation",
    (chains, amount) => {
      const r = routePayout({ amount, candidates: chains });
      const best = bruteMin(chains, amount);
      if (best === null) {
        expect(isRoute(r)).toBe(false);
        return;
      }
      expect(isRoute(r) && r.fee).toBe(best);
    },
  );

  test.prop([chainsArb(3, 20, false), fc.bigInt({ min: 1n, max: 20n })], { numRuns: 200 })(
    "with fractional proportional fees it stays within one unit per transfer of the brute-force minimum",
    (chains, amount) => {
      const r = routePayout({ amount, candidates: chains });
      const best = bruteMin(chains, amount);
      if (best === null) {
        expect(isRoute(r)).toBe(false);
        return;
      }
      if (!isRoute(r)) throw new Error("expected a route");
      expect(r.fee >= best).toBe(true);
      expect(r.fee - best <= BigInt(r.legs.length)).toBe(true);
    },
  );

  test.prop([chainsArb(3, 20), fc.bigInt({ min: 1n, max: 20n }), fc.bigInt({ min: 0n, max: 60n })], { numRuns: 300 })(
    "respects max_network_fee, and refuses only when no allocation fits under it",
    (chains, amount, max) => {
      const r = routePayout({ amount, candidates: chains, maxNetworkFee: max });
      const best = bruteMin(chains, amount);
      if (isRoute(r)) {
        expect(r.fee <= max).toBe(true);
        return;
      }
      if (r.code === "insufficient_liquidity") {
        expect(best).toBeNull();
        return;
      }
      expect(best !== null && best > max).toBe(true);
      expect(r.cheapestFee).toBe(best);
    },
  );

  test.prop([chainsArb(6, 5_000), fc.bigInt({ min: 1n, max: 5_000n })])("splits only when no single chain can do it as cheaply", (chains, amount) => {
    const r = routePayout({ amount, candidates: chains });
    if (!isRoute(r)) return;
    const single = chains.filter((c) => c.liquidity >= amount).map((c) => transfersOf(c, amount).reduce((s, l) => s + l.fee, 0n));
    const cheapestSingle = single.length ? single.reduce((a, b) => (a < b ? a : b)) : null;
    if (cheapestSingle !== null && cheapestSingle <= r.fee) {
      expect(perChain(r).size).toBe(1);
      expect(r.fee).toBe(cheapestSingle);
    }
  });

  test.prop([chainsArb(5, 50), fc.bigInt({ min: 1n, max: 60n }), fc.subarray(NAMES), fc.bigInt({ min: 0n, max: 80n })], {
    numRuns: 300,
  })("uses only preferred chains when they can carry the payout within the fee cap", (chains, amount, prefer, max) => {
    const r = routePayout({ amount, candidates: chains, preferChains: prefer, maxNetworkFee: max });
    const preferred = chains.filter((c) => prefer.includes(c.chain));
    const alone = routePayout({ amount, candidates: preferred, maxNetworkFee: max });
    if (preferred.length && isRoute(alone)) {
      expect(isRoute(r)).toBe(true);
      for (const leg of (r as Route).legs) expect(prefer).toContain(leg.chain);
    }
  });

  test.prop([chainsArb(6, 500), fc.bigInt({ min: 1n, max: 800n }), fc.nat()])("does not depend on the order chains are given in", (chains, amount, seed) => {
    const shuffled = [...chains].sort((a, b) => ((a.chain.charCodeAt(0) * 31 + seed) % 7) - ((b.chain.charCodeAt(1) * 17 + seed) % 7));
    expect(routePayout({ amount, candidates: shuffled })).toEqual(routePayout({ amount, candidates: chains }));
  });

  test.prop([fc.bigInt({ min: 1n, max: 10_000n }), fc.bigInt({ min: 1n, max: 100n }), fc.bigInt({ min: 0n, max: 9n })])(
    "a capped chain sends ⌈x/cap⌉ transfers of at most cap, each paying the fixed fee",
    (x, cap, fixed) => {
      const legs = transfersOf({ chain: "ethereum", liquidity: x, fixed, proportionalPpm: 0n, cap }, x);
      expect(legs.length).toBe(Number((x + cap - 1n) / cap));
      expect(legs.every((l) => l.amount <= cap && l.fee === fixed)).toBe(true);
      expect(legs.reduce((s, l) => s + l.amount, 0n)).toBe(x);
    },
  );

  it("prefers two cheap chains to one dear chain when that is strictly cheaper (Gateway's fee table)", () => {
    const r = routePayout({
      amount: 10_000_000n,
      candidates: [
        { chain: "ethereum", liquidity: 50_000_000n, fixed: 2_000_000n, proportionalPpm: 0n, cap: null },
        { chain: "base", liquidity: 6_000_000n, fixed: 10_000n, proportionalPpm: 0n, cap: null },
        { chain: "arbitrum", liquidity: 6_000_000n, fixed: 10_000n, proportionalPpm: 0n, cap: null },
      ],
    });
    expect(isRoute(r) && r.legs.map((l) => l.chain).sort()).toEqual(["arbitrum", "base"]);
    expect(isRoute(r) && r.fee).toBe(20_000n);
  });
});

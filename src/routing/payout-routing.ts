import { divCeil } from "../money/rounding";

/** One chain a payout could use, with what it costs and what it can carry (base units). */
export interface ChainCandidate {
  chain: string;
  /** Hot-wallet liquidity available on this chain. */
  liquidity: bigint;
  /** Fee per transfer. */
  fixed: bigint;
  /** Proportional fee, parts per million of the amount sent. */
  proportionalPpm: bigint;
  /** Largest transfer; a larger allocation goes out as several transfers. */
  cap: bigint | null;
}

export interface RouteRequest {
  amount: bigint;
  candidates: readonly ChainCandidate[];
  /** Soft preference (research §11.3): used alone when they can carry the payout within the cap. */
  preferChains?: readonly string[];
  /** Most the sender will pay in network fees, or null for no limit. */
  maxNetworkFee?: bigint | null;
}

/** One transfer of the route: a payout leg. */
export interface RoutedLeg {
  chain: string;
  amount: bigint;
  /** What this transfer costs: fixed fee plus the proportional part rounded up. */
  fee: bigint;
}

export interface Route {
  legs: RoutedLeg[];
  /** Σ leg fees: what the sender pays on top of the amount. */
  fee: bigint;
  /**
   * True when the exact search would have been too large (many capped transfers) and a greedy
   * route was taken instead (research §11.6: say so when a heuristic is used).
   */
  approximate: boolean;
}

export type RouteFailure = { code: "insufficient_liquidity"; available: bigint } | { code: "no_route"; cheapestFee: bigint };

/** Allocations the exact search may score; beyond it the greedy route is used (and flagged). */
const EXACT_BUDGET = 50_000;
const PPM = 1_000_000n;

/**
 * Splits a payout across chains at the least network fee (research §8.2). The cost of sending
 * x on chain c is F_c·⌈x/cap_c⌉ + v_c·x; some optimum has every chain but at most one at a
 * breakpoint (0, its liquidity, or a multiple of its cap), so the search enumerates breakpoint
 * assignments and lets one "free" chain take the rest. It is exact in that fee model; the fee
 * charged rounds each transfer's proportional part up, which is at most one base unit per
 * transfer above the exact figure, and candidates compare by the charged fee first.
 *
 * Ties go to fewer chains, then fewer transfers, then to chains earlier by name, so the result
 * does not depend on the order chains are given in. A split appears only when no single chain
 * can carry the payout within `maxNetworkFee`, or when it is strictly cheaper.
 */
export function routePayout(request: RouteRequest): Route | RouteFailure {
  const { amount } = request;
  if (amount <= 0n) throw new RangeError("a payout routes a positive amount");
  const usable = [...request.candidates].filter((c) => c.liquidity > 0n).sort((a, b) => (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0));
  const available = usable.reduce((sum, c) => sum + c.liquidity, 0n);
  if (available < amount) return { code: "insufficient_liquidity", available };

  const preferred = new Set(request.preferChains ?? []);
  const tiers = preferred.size > 0 ? [usable.filter((c) => preferred.has(c.chain)), usable] : [usable];
  const cap = request.maxNetworkFee ?? null;
  let cheapest: bigint | null = null;
  for (const tier of tiers) {
    const best = cheapestRoute(amount, tier);
    if (!best) continue;
    if (cap === null || best.fee <= cap) return best;
    cheapest = cheapest === null || best.fee < cheapest ? best.fee : cheapest;
  }
  return { code: "no_route", cheapestFee: cheapest ?? 0n };
}

/** An allocation's score: charged fee, exact fee (×10^6), transfers, chains used. */
interface Score {
  fee: bigint;
  exact: bigint;
  transfers: bigint;
  allocation: bigint[];
}

function cheapestRoute(amount: bigint, chains: readonly ChainCandidate[]): Route | null {
  const total = chains.reduce((sum, c) => sum + c.liquidity, 0n);
  if (chains.length === 0 || total < amount) return null;
  const breakpoints = chains.map((c) => breakpointsOf(c, amount));
  const size = breakpoints.reduce((n, bp) => n * bp.length, chains.length + 1);
  const approximate = size > EXACT_BUDGET;
  const best = approximate ? greedy(amount, chains) : exhaustive(amount, chains, breakpoints);
  if (!best) return null;
  const legs = chains.flatMap((c, i) => transfersOf(c, best.allocation[i]!));
  return { legs, fee: best.fee, approximate };
}

function exhaustive(amount: bigint, chains: readonly ChainCandidate[], breakpoints: bigint[][]): Score | null {
  let best: Score | null = null;
  const allocation: bigint[] = chains.map(() => 0n);
  // free = index of the chain that takes the remainder, or -1 for none (all at breakpoints)
  for (let free = -1; free < chains.length; free++) {
    const assign = (i: number, sum: bigint): void => {
      if (sum > amount) return;
      if (i === chains.length) {
        const rest = amount - sum;
        if (free === -1 ? rest !== 0n : rest < 0n || rest > chains[free]!.liquidity) return;
        if (free !== -1) allocation[free] = rest;
        const scored = score(chains, allocation);
        if (!best || better(scored, best)) best = scored;
        return;
      }
      if (i === free) {
        assign(i + 1, sum);
        return;
      }
      for (const value of breakpoints[i]!) {
        allocation[i] = value;
        assign(i + 1, sum + value);
      }
      allocation[i] = 0n;
    };
    allocation.fill(0n);
    assign(0, 0n);
  }
  return best;
}

/**
 * For searches too large to enumerate: every single chain that can carry the payout, and the
 * fills that take chains in order of their cost per unit when used to the full, best of them.
 */
function greedy(amount: bigint, chains: readonly ChainCandidate[]): Score | null {
  const candidates: bigint[][] = [];
  chains.forEach((c, i) => {
    if (c.liquidity >= amount) candidates.push(chains.map((_, j) => (j === i ? amount : 0n)));
  });
  const perUnit = (c: ChainCandidate) => {
    const top = c.liquidity < amount ? c.liquidity : amount;
    return { c, cost: (chainFee(c, top).exact * 1_000_000n) / top };
  };
  const order = chains.map(perUnit).sort((a, b) => (a.cost < b.cost ? -1 : a.cost > b.cost ? 1 : 0));
  let left = amount;
  const fill = chains.map(() => 0n);
  for (const { c } of order) {
    if (left === 0n) break;
    const take = c.liquidity < left ? c.liquidity : left;
    fill[chains.indexOf(c)] = take;
    left -= take;
  }
  if (left === 0n) candidates.push(fill);
  let best: Score | null = null;
  for (const allocation of candidates) {
    const scored = score(chains, allocation);
    if (!best || better(scored, best)) best = scored;
  }
  return best;
}

/** 0, the liquidity usable for this payout, and every multiple of the cap below it. */
function breakpointsOf(c: ChainCandidate, amount: bigint): bigint[] {
  const top = c.liquidity < amount ? c.liquidity : amount;
  const points = new Set<bigint>([0n, top]);
  if (c.cap !== null && c.cap > 0n && top / c.cap <= BigInt(EXACT_BUDGET)) {
    for (let k = c.cap; k < top; k += c.cap) points.add(k);
  } else if (c.cap !== null && c.cap > 0n) {
    points.add(c.cap).add((top / c.cap) * c.cap); // only matters for the size estimate
  }
  return [...points].filter((p) => p <= top).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Transfers of a chain's allocation, and its charged and exact (×10^6) fee, without building legs. */
function chainFee(c: ChainCandidate, x: bigint): { fee: bigint; exact: bigint; transfers: bigint } {
  if (x === 0n) return { fee: 0n, exact: 0n, transfers: 0n };
  if (c.cap === null || c.cap <= 0n || x <= c.cap) {
    return { fee: c.fixed + divCeil(x * c.proportionalPpm, PPM), exact: c.fixed * PPM + x * c.proportionalPpm, transfers: 1n };
  }
  const full = x / c.cap;
  const rest = x - full * c.cap;
  const transfers = full + (rest > 0n ? 1n : 0n);
  const fee = transfers * c.fixed + full * divCeil(c.cap * c.proportionalPpm, PPM) + (rest > 0n ? divCeil(rest * c.proportionalPpm, PPM) : 0n);
  return { fee, exact: transfers * c.fixed * PPM + x * c.proportionalPpm, transfers };
}

/** Splits a chain's allocation into transfers of at most its cap, largest first. */
export function transfersOf(c: ChainCandidate, allocated: bigint): RoutedLeg[] {
  if (allocated === 0n) return [];
  const pieces: bigint[] = [];
  if (c.cap === null || c.cap <= 0n) pieces.push(allocated);
  else {
    let left = allocated;
    while (left > 0n) {
      const piece = left < c.cap ? left : c.cap;
      pieces.push(piece);
      left -= piece;
    }
  }
  return pieces.map((piece) => ({ chain: c.chain, amount: piece, fee: c.fixed + divCeil(piece * c.proportionalPpm, PPM) }));
}

function score(chains: readonly ChainCandidate[], allocation: readonly bigint[]): Score {
  let fee = 0n;
  let exact = 0n;
  let transfers = 0n;
  chains.forEach((c, i) => {
    const f = chainFee(c, allocation[i]!);
    fee += f.fee;
    exact += f.exact;
    transfers += f.transfers;
  });
  return { fee, exact, transfers, allocation: [...allocation] };
}

/**
 * Cheaper charged fee, then exact fee, then fewer chains (a split must be strictly cheaper),
 * then fewer transfers, then more on earlier chains.
 */
function better(a: Score, b: Score): boolean {
  if (a.fee !== b.fee) return a.fee < b.fee;
  if (a.exact !== b.exact) return a.exact < b.exact;
  const chainsA = a.allocation.filter((x) => x > 0n).length;
  const chainsB = b.allocation.filter((x) => x > 0n).length;
  if (chainsA !== chainsB) return chainsA < chainsB;
  if (a.transfers !== b.transfers) return a.transfers < b.transfers;
  for (let i = 0; i < a.allocation.length; i++) {
    if (a.allocation[i] !== b.allocation[i]) return a.allocation[i]! > b.allocation[i]!;
  }
  return false;
}

import type { VenueSnapshot } from "../ports/venue";
import { FEE_SCALE, equivalentPool } from "./venue-curves";

/**
 * The continuous optimal split of an exact-in order across constant-product pools and order
 * books (research §3), with a fixed cost per venue used (§3.4).
 *
 * It works in float64 on the venues' real-valued curves, as research §3.6 allows: it only
 * decides how the order is shared out, to a relative precision far inside the 1e-9 the tests
 * ask. Every amount the API shows is then computed in exact integers (`integer-split.ts`,
 * `venue-curves.ts`), so no money is ever a float.
 */

/** Above this many venues with a fixed cost, subsets are not enumerated (2^n sweeps). */
export const MAX_EXACT_FIXED_COST_VENUES = 12;

/** A pool on the real line: output O(a) = γ·a·y / (x + γ·a). */
interface RealPool {
  kind: "pool";
  x: number;
  y: number;
  gamma: number;
  /** Zero-size rate γ·y/x. */
  s: number;
  /** sqrt(x·y/γ) and x/γ, the terms of the closed form. */
  sq: number;
  xg: number;
  kappa: number;
}

interface RealBook {
  kind: "book";
  /** Rate net of the taker fee, and capacity in input units, best first. */
  rho: number[];
  cap: number[];
  kappa: number;
}

type RealVenue = RealPool | RealBook;

/** A breakpoint of the sweep: a pool's zero-size rate or a book level's rate. */
interface Breakpoint {
  value: number;
  venue: number;
  /** Level index for a book, -1 for a pool. */
  level: number;
}

/** The venues of one order on the real line, with their breakpoints sorted once. */
export interface SplitModel {
  readonly venues: readonly RealVenue[];
  readonly breakpoints: readonly Breakpoint[];
}

/** The continuous solution for one set of allowed venues. */
export interface ContinuousSolution {
  /** The common post-trade marginal rate λ of the venues used (KKT, research §3). */
  lambda: number;
  /** Real-valued input per venue (0 when unused or not allowed): proportions only, never money. */
  allocations: number[];
  /** Per book: levels consumed in full (a prefix), and the real input into the next level. */
  fullLevels: number[];
  partial: number[];
  /** Real output before fixed costs. */
  output: number;
  /** Output less the fixed cost of every venue used: what the choice of venues maximises. */
  score: number;
}

/**
 * The conversion from exact integers to the solver's floats: the one place base units become
 * numbers, to decide proportions only.
 */
function real(value: bigint): number {
  return Number(value);
}

export function splitModel(venues: readonly VenueSnapshot[]): SplitModel {
  const F = real(FEE_SCALE);
  const model: RealVenue[] = venues.map((v) => {
    if (v.kind === "pool" || v.kind === "route") {
      // A route is, on the real line, exactly one constant-product pool (venue-curves.ts).
      const { x, y, gamma } = v.kind === "route" ? equivalentPool(v) : { x: real(v.reserveIn), y: real(v.reserveOut), gamma: (F - real(v.feePpm)) / F };
      return { kind: "pool", x, y, gamma, s: (gamma * y) / x, sq: Math.sqrt((x * y) / gamma), xg: x / gamma, kappa: real(v.networkCost) };
    }
    const net = (F - real(v.takerFeePpm)) / F;
    return {
      kind: "book",
      rho: v.levels.map((l) => (real(l.rateNum) / real(l.rateDen)) * net),
      cap: v.levels.map((l) => real(l.capacityIn)),
      kappa: real(v.networkCost),
    };
  });
  const breakpoints: Breakpoint[] = [];
  model.forEach((v, venue) => {
    if (v.kind === "pool") breakpoints.push({ value: v.s, venue, level: -1 });
    else v.rho.forEach((value, level) => breakpoints.push({ value, venue, level }));
  });
  // The sweep groups equal rates: a NaN would never equal itself and the sweep would not advance.
  for (const b of breakpoints) if (!Number.isFinite(b.value)) throw new RangeError(`venue ${venues[b.venue]!.venue}: rate out of range`);
  // Descending rate; ties in venue order, then level order (research §3.2 [P]): deterministic.
  breakpoints.sort((a, b) => b.value - a.value || a.venue - b.venue || a.level - b.level);
  return { venues: model, breakpoints };
}

/**
 * The exact breakpoint sweep of research §3.2 over the allowed venues: walks the rates from the
 * best down; in each open interval the pools' closed form gives λ directly, and at a book level
 * λ may sit exactly on the level, which then takes what is left. O(breakpoints), no bisection.
 * Returns null when the allowed venues cannot absorb `amount` (books only, too shallow).
 */
export function solveContinuous(model: SplitModel, amount: number, allowed: readonly boolean[]): ContinuousSolution | null {
  const { venues, breakpoints } = model;
  const fullLevels = venues.map(() => 0);
  const partial = venues.map(() => 0);
  const activePools: number[] = [];
  let sumXg = 0;
  let sumSq = 0;
  let booked = 0; // input taken by book levels consumed in full
  let hi = Infinity;
  const bps = breakpoints.filter((b) => allowed[b.venue]);
  for (let i = 0; ; ) {
    const last = i >= bps.length;
    const lo = last ? 0 : bps[i]!.value;
    // The open interval (lo, hi): active pools follow the closed form, consumed levels are fixed.
    if (sumSq > 0) {
      const m = (amount - booked + sumXg) / sumSq;
      const lambda = 1 / (m * m);
      // A small tolerance: at a boundary rounding may put λ a hair outside; the last interval
      // always holds the answer when pools are active.
      if (m > 0 && (last || (lambda >= lo * (1 - 1e-12) && lambda <= hi * (1 + 1e-12)))) {
        const amounts = venues.map(() => 0);
        let pools = 0;
        for (const p of activePools) {
          const pool = venues[p] as RealPool;
          amounts[p] = Math.max(0, pool.sq * m - pool.xg);
          pools += amounts[p]!;
        }
        // `sq·m − x/γ` cancels when an order is tiny beside the reserves, so the pools' total
        // drifts from what they must take by ~ulp(x): rescale it back. What remains is an error
        // in the proportions between pools, which at the optimum costs only second order.
        if (pools > 0) for (const p of activePools) amounts[p]! *= (amount - booked) / pools;
        return finish(model, allowed, amounts, fullLevels, partial, Math.min(Math.max(lambda, lo), hi));
      }
    }
    if (last) return null;
    let j = i;
    let levelCap = 0;
    while (j < bps.length && bps[j]!.value === lo) {
      const b = bps[j]!;
      if (b.level >= 0) levelCap += (venues[b.venue] as RealBook).cap[b.level]!;
      j++;
    }
    // λ exactly on a book level: the levels at `lo` take what the pools and better levels leave.
    if (levelCap > 0) {
      let pools = 0;
      const amounts = venues.map(() => 0);
      for (const p of activePools) {
        const pool = venues[p] as RealPool;
        amounts[p] = Math.max(0, pool.sq / Math.sqrt(lo) - pool.xg);
        pools += amounts[p]!;
      }
      const strict = pools + booked;
      if (strict <= amount && amount <= strict + levelCap) {
        let left = amount - strict;
        for (let k = i; k < j && left > 0; k++) {
          const b = bps[k]!;
          if (b.level < 0) continue;
          const cap = (venues[b.venue] as RealBook).cap[b.level]!;
          const take = Math.min(cap, left);
          if (take === cap) fullLevels[b.venue]! += 1;
          else partial[b.venue] = take;
          left -= take;
        }
        return finish(model, allowed, amounts, fullLevels, partial, lo);
      }
    }
    for (let k = i; k < j; k++) {
      const b = bps[k]!;
      if (b.level < 0) {
        const pool = venues[b.venue] as RealPool;
        activePools.push(b.venue);
        sumXg += pool.xg;
        sumSq += pool.sq;
      } else {
        booked += (venues[b.venue] as RealBook).cap[b.level]!;
        fullLevels[b.venue]! += 1;
      }
    }
    hi = lo;
    i = j;
  }
}

function finish(
  model: SplitModel,
  allowed: readonly boolean[],
  poolAmounts: number[],
  fullLevels: number[],
  partial: number[],
  lambda: number,
): ContinuousSolution {
  const amounts = poolAmounts;
  let output = 0;
  let score = 0;
  model.venues.forEach((v, i) => {
    if (!allowed[i]) return;
    let out = 0;
    if (v.kind === "pool") {
      const a = amounts[i]!;
      out = (v.gamma * a * v.y) / (v.x + v.gamma * a);
    } else {
      let a = 0;
      for (let l = 0; l < fullLevels[i]!; l++) {
        a += v.cap[l]!;
        out += v.cap[l]! * v.rho[l]!;
      }
      if (partial[i]! > 0) {
        a += partial[i]!;
        out += partial[i]! * v.rho[fullLevels[i]!]!;
      }
      amounts[i] = a;
    }
    output += out;
    score += out - (amounts[i]! > 0 ? v.kappa : 0);
  });
  return { lambda, allocations: amounts, fullLevels, partial, output, score };
}

/** The continuous optimum with the venues chosen, and whether the choice was exact. */
export interface ChosenSplit {
  solution: ContinuousSolution;
  /** True when a heuristic chose the venues (more than 12 with a fixed cost, research §3.4). */
  approximate: boolean;
}

/**
 * Chooses which venues to use when some carry a fixed cost (research §3.4): with up to 12 such
 * venues every subset is swept and the best score wins (ties: the earlier subset in enumeration
 * order, which prefers fewer costly venues); beyond that, backward elimination from all venues
 * and forward selection from the free ones, keeping the better, marked approximate.
 */
export function chooseSplit(model: SplitModel, amountIn: bigint): ChosenSplit | null {
  const amount = real(amountIn);
  const n = model.venues.length;
  const costly = model.venues.flatMap((v, i) => (v.kappa > 0 ? [i] : []));
  const base = model.venues.map((v) => v.kappa === 0);
  if (costly.length <= MAX_EXACT_FIXED_COST_VENUES) {
    let best: ContinuousSolution | null = null;
    for (let mask = 0; mask < 1 << costly.length; mask++) {
      const allowed = base.slice();
      costly.forEach((venue, bit) => {
        if (mask & (1 << bit)) allowed[venue] = true;
      });
      const s = solveContinuous(model, amount, allowed);
      if (s && (best === null || s.score > best.score)) best = s;
    }
    return best && { solution: best, approximate: false };
  }
  const backward = eliminate(model, amount, new Array<boolean>(n).fill(true));
  const forward = select(model, amount, base, costly);
  const best = [backward, forward].filter((s): s is ContinuousSolution => s !== null).sort((a, b) => b.score - a.score)[0];
  return best ? { solution: best, approximate: true } : null;
}

/** Drops, one at a time, the costly venue whose removal improves the score most. */
function eliminate(model: SplitModel, amount: number, allowed: boolean[]): ContinuousSolution | null {
  let current = solveContinuous(model, amount, allowed);
  while (current) {
    let best: { venue: number; s: ContinuousSolution } | null = null;
    for (let i = 0; i < model.venues.length; i++) {
      if (!allowed[i] || model.venues[i]!.kappa === 0 || current.allocations[i] === 0) continue;
      allowed[i] = false;
      const s = solveContinuous(model, amount, allowed);
      allowed[i] = true;
      if (s && s.score > (best?.s.score ?? current.score)) best = { venue: i, s };
    }
    if (!best) break;
    allowed[best.venue] = false;
    current = best.s;
  }
  return current;
}

/** Adds, one at a time, the costly venue whose addition improves the score most. */
function select(model: SplitModel, amount: number, base: readonly boolean[], costly: readonly number[]): ContinuousSolution | null {
  const allowed = base.slice();
  let current = solveContinuous(model, amount, allowed);
  for (;;) {
    let best: { venue: number; s: ContinuousSolution } | null = null;
    for (const i of costly) {
      if (allowed[i]) continue;
      allowed[i] = true;
      const s = solveContinuous(model, amount, allowed);
      allowed[i] = false;
      if (s && s.score > (best?.s.score ?? current?.score ?? -Infinity)) best = { venue: i, s };
    }
    if (!best) return current;
    allowed[best.venue] = true;
    current = best.s;
  }
}

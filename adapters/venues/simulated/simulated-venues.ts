import {
  venueCapacity,
  venueOut,
  type Clock,
  type ExecutedLeg,
  type BookLevel,
  type BookSnapshot,
  type PoolSnapshot,
  type VenueAdapter,
  type VenueExecution,
  type VenueExecutionResult,
  type VenueSnapshot,
} from "../../../src/ports/public";
import { VENUE_JITTER, VOLATILITY, hash32, hashText, offsetPpb } from "./price-path";

/** An asset the simulated market prices: its precision and reference USD price. */
export interface SimulatedAsset {
  decimals: number;
  /** Reference price of one whole unit, in millionths of a USD. */
  usdMicros: bigint;
  volatility: keyof typeof VOLATILITY;
}

interface VenueSpecBase {
  /** Unique venue name, shown in quotes. */
  name: string;
  /** Liquidity per side, in whole USD at reference prices. */
  depthUsd: bigint;
  /** Fixed cost of using the venue, in millionths of a USD (converted to the output asset). */
  networkCostMicroUsd: bigint;
  /** Assets it trades (every pair among them); default every simulated asset. */
  assets?: readonly string[];
}

/** A constant-product pool per pair. */
export interface SimulatedPoolSpec extends VenueSpecBase {
  kind: "pool";
  feePpm: number;
}

/** An order book per pair, on a tick and lot grid. */
export interface SimulatedBookSpec extends VenueSpecBase {
  kind: "book";
  takerFeePpm: number;
  /** Levels per side. */
  levels: number;
  /** Distance from the best bid to the best ask, parts per million of the mid. */
  spreadPpm: number;
  /** Distance between neighbouring levels, parts per million of the mid. */
  levelGapPpm: number;
}

export type SimulatedVenueSpec = SimulatedPoolSpec | SimulatedBookSpec;

/** docs/decisions.md §1's assets at round reference prices. */
export const DEFAULT_SIMULATED_ASSETS: Record<string, SimulatedAsset> = {
  USDC: { decimals: 6, usdMicros: 1_000_000n, volatility: "stable" },
  USDT: { decimals: 6, usdMicros: 1_000_000n, volatility: "stable" },
  EURC: { decimals: 6, usdMicros: 1_080_000n, volatility: "fx" },
  ETH: { decimals: 18, usdMicros: 3_000_000_000n, volatility: "crypto" },
  BTC: { decimals: 8, usdMicros: 60_000_000_000n, volatility: "crypto" },
  SOL: { decimals: 9, usdMicros: 150_000_000n, volatility: "crypto" },
};

/**
 * Four pools (fees and fixed costs like Ethereum mainnet, two L2s and Solana) and two books
 * (one free to use, one with a withdrawal fee): enough that orders split in interesting ways.
 */
export const DEFAULT_SIMULATED_VENUES: readonly SimulatedVenueSpec[] = [
  { kind: "pool", name: "sim-pool-ethereum", feePpm: 3000, depthUsd: 20_000_000n, networkCostMicroUsd: 4_000_000n },
  { kind: "pool", name: "sim-pool-base", feePpm: 500, depthUsd: 4_000_000n, networkCostMicroUsd: 20_000n },
  { kind: "pool", name: "sim-pool-arbitrum", feePpm: 500, depthUsd: 6_000_000n, networkCostMicroUsd: 50_000n },
  { kind: "pool", name: "sim-pool-solana", feePpm: 2500, depthUsd: 3_000_000n, networkCostMicroUsd: 2_000n },
  { kind: "book", name: "sim-book-alpha", takerFeePpm: 1000, depthUsd: 10_000_000n, levels: 15, spreadPpm: 400, levelGapPpm: 300, networkCostMicroUsd: 0n },
  {
    kind: "book",
    name: "sim-book-beta",
    takerFeePpm: 800,
    depthUsd: 3_000_000n,
    levels: 10,
    spreadPpm: 600,
    levelGapPpm: 500,
    networkCostMicroUsd: 1_000_000n,
  },
];

export interface SimulatedVenuesOptions {
  /** The time prices follow: the engine's clock. */
  clock: Clock;
  /** Everything random (paths, venue offsets, book sizes) follows from it. Default 1. */
  seed?: number;
  venues?: readonly SimulatedVenueSpec[];
  assets?: Record<string, SimulatedAsset>;
  /**
   * How long the venues honour a snapshot they showed (a firm quote, like an RFQ maker):
   * executions priced within this window execute at the snapshot's prices. Default 600 s, the
   * longest quote ttl.
   */
  firmWindowMs?: number;
  /** Adapter name (default `simulated`). */
  name?: string;
}

const PPB = 1_000_000_000n;
const PPM = 1_000_000n;

/**
 * Simulated venues: constant-product pools and order books for every pair of the simulated
 * assets, priced as a deterministic function of the seed and the clock. Each asset's USD price
 * follows its own path; each venue adds a fixed offset and a short jitter, so venues disagree a
 * little and splitting pays. Trades do not move the simulated market (it is deep and
 * arbitraged back at once), so a limit order sees the same market again at the next step
 * unless time has moved.
 */
export class SimulatedVenues implements VenueAdapter {
  readonly name: string;
  /** A simulation: test-mode accounts only (a live account is never priced by it). */
  readonly testModeOnly = true;
  private readonly clock: Clock;
  private readonly seed: number;
  private readonly specs: readonly SimulatedVenueSpec[];
  private readonly assets: Record<string, SimulatedAsset>;
  private readonly firmWindowMs: number;
  private readonly results = new Map<string, VenueExecutionResult>();
  private readonly halted = new Set<string>();

  constructor(options: SimulatedVenuesOptions) {
    this.clock = options.clock;
    this.seed = options.seed ?? 1;
    this.specs = options.venues ?? DEFAULT_SIMULATED_VENUES;
    this.assets = options.assets ?? DEFAULT_SIMULATED_ASSETS;
    this.firmWindowMs = options.firmWindowMs ?? 600_000;
    this.name = options.name ?? "simulated";
    const names = new Set<string>();
    for (const spec of this.specs) {
      if (names.has(spec.name)) throw new TypeError(`simulated venue ${spec.name} is defined twice`);
      names.add(spec.name);
    }
  }

  async snapshot(from: string, to: string): Promise<VenueSnapshot[]> {
    return this.snapshotsAt(from, to, this.clock.now());
  }

  /** The snapshots at any moment: the path is a pure function of the seed and the time. */
  snapshotsAt(from: string, to: string, time: number): VenueSnapshot[] {
    if (!this.assets[from] || !this.assets[to] || from === to) return [];
    return this.specs.flatMap((spec) => {
      if (spec.assets && !(spec.assets.includes(from) && spec.assets.includes(to))) return [];
      return [spec.kind === "pool" ? this.pool(spec, from, to, time) : this.book(spec, from, to, time)];
    });
  }

  async execute(request: VenueExecution): Promise<VenueExecutionResult> {
    const done = this.results.get(request.executionId);
    if (done) return done;
    const now = this.clock.now();
    const firm = request.pricedAt <= now && now - request.pricedAt <= this.firmWindowMs;
    const snapshots = new Map(this.snapshotsAt(request.from, request.to, firm ? request.pricedAt : now).map((s) => [s.venue, s]));
    let result: VenueExecutionResult | null = null;
    const legs: ExecutedLeg[] = [];
    for (const leg of request.legs) {
      const venue = snapshots.get(leg.venue);
      const cap = venue ? venueCapacity(venue) : null;
      if (!venue || this.halted.has(leg.venue)) {
        result = { status: "rejected", reason: `venue ${leg.venue} is not trading` };
        break;
      }
      if (cap !== null && leg.amountIn > cap) {
        result = { status: "rejected", reason: `venue ${leg.venue} lacks the liquidity` };
        break;
      }
      const amountOut = venueOut(venue, leg.amountIn);
      if (amountOut < leg.minAmountOut) {
        result = { status: "rejected", reason: `price moved at ${leg.venue}` };
        break;
      }
      legs.push({ venue: leg.venue, amountIn: leg.amountIn, amountOut });
    }
    result ??= { status: "executed", legs };
    this.results.set(request.executionId, result);
    return result;
  }

  /** Stops a venue trading: executions using it are rejected until `resume` (for tests). */
  halt(venue: string): void {
    this.halted.add(venue);
  }

  resume(venue: string): void {
    this.halted.delete(venue);
  }

  /** An asset's USD price at `time`, in millionths of a USD per whole unit. */
  usdPrice(asset: string, time: number): bigint {
    const a = this.assets[asset]!;
    const offset = BigInt(offsetPpb(this.seed, hashText(asset), VOLATILITY[a.volatility], time));
    return (a.usdMicros * (PPB + offset)) / PPB;
  }

  /** A venue's deviation from the market at `time`: a fixed offset (±0.15 %) plus jitter. */
  private deviationPpb(venue: string, time: number): bigint {
    const key = hashText(venue);
    const fixed = ((hash32(this.seed, key) % 3001) - 1500) * 1000;
    return BigInt(fixed + offsetPpb(this.seed, key, VENUE_JITTER, time));
  }

  /** Base units of `asset` worth `micros` millionths of a USD at `time`, rounded down. */
  private unitsFor(asset: string, micros: bigint, time: number): bigint {
    return (micros * 10n ** BigInt(this.assets[asset]!.decimals)) / this.usdPrice(asset, time);
  }

  private networkCost(spec: VenueSpecBase, to: string, time: number): bigint {
    if (spec.networkCostMicroUsd === 0n) return 0n;
    const scaled = spec.networkCostMicroUsd * 10n ** BigInt(this.assets[to]!.decimals);
    const price = this.usdPrice(to, time);
    return (scaled + price - 1n) / price;
  }

  /**
   * One pool per unordered pair, seen from either side: the first asset by name carries the
   * venue's deviation, so both directions see the same reserves.
   */
  private pool(spec: SimulatedPoolSpec, from: string, to: string, time: number): PoolSnapshot {
    const [first] = [from, to].sort();
    const depth = spec.depthUsd * 1_000_000n;
    const deviation = this.deviationPpb(spec.name, time);
    const reserve = (asset: string) => {
      const units = this.unitsFor(asset, depth, time);
      // The first asset is scarcer when the venue prices it higher.
      return asset === first ? (units * PPB) / (PPB + deviation) : units;
    };
    return {
      kind: "pool",
      venue: spec.name,
      reserveIn: reserve(from),
      reserveOut: reserve(to),
      feePpm: BigInt(spec.feePpm),
      networkCost: this.networkCost(spec, to, time),
    };
  }

  /**
   * One book per unordered pair: the dearer asset is the base. Prices sit on a tick grid (about
   * a millionth of the mid), quantities on a lot grid (a ten-thousandth of a unit), and level
   * sizes are redrawn every minute. Selling the base walks the bids; buying it walks the asks.
   */
  private book(spec: SimulatedBookSpec, from: string, to: string, time: number): BookSnapshot {
    const [base, quote] = this.orient(from, to);
    const baseScale = 10n ** BigInt(this.assets[base]!.decimals);
    const quoteScale = 10n ** BigInt(this.assets[quote]!.decimals);
    const mid = (this.usdPrice(base, time) * quoteScale * (PPB + this.deviationPpb(spec.name, time))) / (this.usdPrice(quote, time) * PPB);
    let tick = 1n;
    while (tick * 10n * 1_000_000n <= mid) tick *= 10n;
    const step = baseScale >= 10_000n ? baseScale / 10_000n : 1n;
    const perLevel = this.unitsFor(base, (spec.depthUsd * 1_000_000n) / BigInt(spec.levels), time);
    const minute = Math.floor(time / 60_000);
    const pair = hashText(`${base}/${quote}`);
    const levels: BookLevel[] = [];
    for (let i = 0; i < spec.levels; i++) {
      const away = BigInt(Math.floor(spec.spreadPpm / 2) + i * spec.levelGapPpm);
      const size = (perLevel * BigInt(500 + (hash32(this.seed, hashText(spec.name), pair, i, minute) % 1000))) / 1000n;
      const qty = size - (size % step) || step;
      if (from === base) {
        const bid = ((mid * (PPM - away)) / PPM / tick) * tick;
        if (bid > 0n) levels.push({ rateNum: bid, rateDen: baseScale, capacityIn: qty });
      } else {
        const ask = (((mid * (PPM + away) + PPM - 1n) / PPM + tick - 1n) / tick) * tick;
        const capacityIn = (ask * qty) / baseScale;
        if (capacityIn > 0n) levels.push({ rateNum: baseScale, rateDen: ask, capacityIn });
      }
    }
    return {
      kind: "book",
      venue: spec.name,
      levels,
      takerFeePpm: BigInt(spec.takerFeePpm),
      networkCost: this.networkCost(spec, to, time),
    };
  }

  /** [base, quote]: the asset with the higher reference price is the base (ties: by name). */
  private orient(a: string, b: string): [string, string] {
    const pa = this.assets[a]!.usdMicros;
    const pb = this.assets[b]!.usdMicros;
    if (pa !== pb) return pa > pb ? [a, b] : [b, a];
    return a < b ? [a, b] : [b, a];
  }
}

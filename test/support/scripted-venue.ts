import type { PoolSnapshot, VenueAdapter, VenueExecution, VenueExecutionResult, VenueSnapshot } from "../../src/ports/venue";
import { venueOut } from "../../src/quoting/venue-curves";

/**
 * A venue whose prices a test sets by hand: one constant-product pool per pair (both
 * directions see the same reserves). It executes at its current state, like an on-chain pool,
 * and can be made to refuse (`halted`), to fail executions transiently (`failing`) or to be
 * unreachable altogether (`unreachable`).
 */
export class ScriptedVenue implements VenueAdapter {
  readonly name: string;
  halted = false;
  failing = false;
  /** Snapshots throw (the venue is unreachable). */
  unreachable = false;
  readonly executions: VenueExecution[] = [];
  private readonly pools = new Map<string, { reserves: Record<string, bigint>; feePpm: bigint; networkCost: bigint }>();
  private readonly results = new Map<string, VenueExecutionResult>();

  /**
   * `testModeOnly` false makes it stand for a real market (live accounts only), as a real venue
   * adapter would.
   */
  constructor(
    readonly venue = "scripted-pool",
    readonly testModeOnly = true,
  ) {
    this.name = testModeOnly ? "scripted" : "scripted-live";
  }

  /** Sets the pool of a pair: `reserveA` of asset `a` against `reserveB` of `b`. */
  setPool(a: string, reserveA: bigint, b: string, reserveB: bigint, options: { feePpm?: bigint; networkCost?: bigint } = {}): void {
    this.pools.set(key(a, b), {
      reserves: { [a]: reserveA, [b]: reserveB },
      feePpm: options.feePpm ?? 3_000n,
      networkCost: options.networkCost ?? 0n,
    });
  }

  async snapshot(from: string, to: string): Promise<VenueSnapshot[]> {
    if (this.unreachable) throw new Error("venue unreachable");
    const pool = this.pools.get(key(from, to));
    if (!pool) return [];
    const snapshot: PoolSnapshot = {
      kind: "pool",
      venue: this.venue,
      reserveIn: pool.reserves[from]!,
      reserveOut: pool.reserves[to]!,
      feePpm: pool.feePpm,
      networkCost: pool.networkCost,
    };
    return [snapshot];
  }

  async execute(request: VenueExecution): Promise<VenueExecutionResult> {
    if (this.failing) throw new Error("venue timed out");
    const done = this.results.get(request.executionId);
    if (done) return done;
    this.executions.push(request);
    const [snapshot] = await this.snapshot(request.from, request.to);
    let result: VenueExecutionResult;
    if (this.halted || !snapshot) {
      result = { status: "rejected", reason: "venue halted" };
    } else if (request.legs.some((l) => l.venue !== this.venue)) {
      result = { status: "rejected", reason: "unknown venue" };
    } else {
      const legs = request.legs.map((l) => ({ venue: l.venue, amountIn: l.amountIn, amountOut: venueOut(snapshot, l.amountIn) }));
      result = legs.every((l, i) => l.amountOut >= request.legs[i]!.minAmountOut)
        ? { status: "executed", legs }
        : { status: "rejected", reason: "price moved" };
    }
    this.results.set(request.executionId, result);
    return result;
  }
}

function key(a: string, b: string): string {
  return [a, b].sort().join("/");
}

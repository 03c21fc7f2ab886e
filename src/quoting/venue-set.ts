import { groupBy } from "../collections/group-by";
import { AdapterError } from "../errors";
import { guardMethods, type CallTiming } from "../ports/guard";
import type { ExecutedLeg, VenueAdapter, VenueExecution, VenueSnapshot } from "../ports/venue";
import { checkSnapshot } from "./venue-curves";

/** A leg as executed, where: the chain of its venue's adapter (null off chain) and its path (the pair by default). */
export interface PlacedLeg extends ExecutedLeg {
  chain: string | null;
  path: string[];
}

/** What executing legs across the adapters of a mode came to. */
export type PlacedExecution = { status: "executed"; legs: PlacedLeg[] } | { status: "rejected"; reason: string };

/**
 * Which venues serve which mode: `testModeOnly` adapters (simulations) serve test-mode accounts,
 * every other adapter live accounts (the separation of `ChainDirectory`). A mode with no adapter
 * has no venues: its quotes are refused.
 */
export class VenueDirectory {
  private readonly test: VenueSet;
  private readonly live: VenueSet;

  constructor(adapters: readonly VenueAdapter[], timing?: (adapter: string) => CallTiming) {
    this.test = new VenueSet(
      adapters.filter((a) => a.testModeOnly === true),
      timing,
    );
    this.live = new VenueSet(
      adapters.filter((a) => a.testModeOnly !== true),
      timing,
    );
  }

  /** The venues an account of this mode is priced and filled by. */
  for(livemode: boolean): VenueSet {
    return livemode ? this.live : this.test;
  }
}

/**
 * The venues of one mode: every adapter serving it, guarded (an adapter's throw reaches the core as
 * an `AdapterError` naming it), asked together, their snapshots checked and sorted by venue
 * name so a split never depends on the order adapters were given in.
 */
export class VenueSet {
  private readonly adapters: VenueAdapter[];
  /** Each adapter's chain (`VenueAdapter.chain`), or null. */
  private readonly chains: (string | null)[];
  /** Which adapter offers a venue, learnt from snapshots (venue names are unique). */
  private readonly owners = new Map<string, number>();

  /** `timing(name)` times the calls of the adapter called `name` (metrics; see the observer port). */
  constructor(adapters: readonly VenueAdapter[], timing?: (adapter: string) => CallTiming) {
    this.adapters = adapters.map((a) => guardMethods(a.name, a, "", timing?.(a.name)));
    this.chains = adapters.map((a) => a.chain ?? null);
  }

  get size(): number {
    return this.adapters.length;
  }

  /** Whether any adapter's venues are on-chain pools (`VenueAdapter.chain`). */
  get onChain(): boolean {
    return this.chains.some((c) => c !== null);
  }

  /** Whether an adapter's venues trade on `chain` (their swaps move the hot wallet there). */
  tradesOn(chain: string): boolean {
    return this.chains.includes(chain);
  }

  /** Every adapter's snapshots for selling `from` into `to`, checked, by venue name. */
  async snapshots(from: string, to: string): Promise<VenueSnapshot[]> {
    const answers = await Promise.all(this.adapters.map((a) => a.snapshot(from, to)));
    const seen = new Map<string, number>();
    const all: VenueSnapshot[] = [];
    answers.forEach((snapshots, index) => {
      const adapter = this.adapters[index]!.name;
      if (!Array.isArray(snapshots)) throw new AdapterError(adapter, "snapshot", new Error("snapshot must return an array"));
      for (const snapshot of snapshots) {
        checkSnapshot(adapter, snapshot);
        if (seen.has(snapshot.venue)) {
          throw new AdapterError(adapter, "snapshot", new Error(`venue ${snapshot.venue} is offered twice`));
        }
        seen.set(snapshot.venue, index);
        all.push(snapshot);
      }
    });
    for (const [venue, index] of seen) this.owners.set(venue, index);
    return all.sort((a, b) => (a.venue < b.venue ? -1 : a.venue > b.venue ? 1 : 0));
  }

  /**
   * The chains the venues of these legs trade on (`VenueAdapter.chain`), each once; venues of an
   * adapter without a chain add none. Asks the snapshots first when a venue's adapter is not
   * known yet (after a restart).
   */
  async chainsOf(from: string, to: string, venues: readonly string[]): Promise<string[]> {
    if (venues.some((v) => !this.owners.has(v))) await this.snapshots(from, to);
    const chains = new Set<string>();
    for (const v of venues) {
      const owner = this.owners.get(v);
      const chain = owner === undefined ? null : this.chains[owner];
      if (chain) chains.add(chain);
    }
    return [...chains];
  }

  /**
   * Executes legs on the adapters offering their venues, each adapter once with its own legs.
   * Refused as a whole if any adapter refuses (legs an adapter executed before another refused
   * stay with the platform: the customer's side never moves for a refused execution). Each leg
   * comes back with its adapter's chain, so a swap can name where its transactions are.
   */
  async execute(execution: VenueExecution): Promise<PlacedExecution> {
    if (execution.legs.some((l) => !this.owners.has(l.venue))) await this.snapshots(execution.from, execution.to);
    const missing = execution.legs.find((l) => !this.owners.has(l.venue));
    if (missing) return { status: "rejected", reason: `no adapter offers venue ${missing.venue}` };
    const byAdapter = groupBy(execution.legs, (leg) => this.owners.get(leg.venue)!);
    const legs: PlacedLeg[] = [];
    for (const [owner, own] of [...byAdapter].sort((a, b) => a[0] - b[0])) {
      const adapter = this.adapters[owner]!;
      const result = await adapter.execute({ ...execution, legs: own });
      if (result.status === "rejected") return result;
      for (const leg of own) {
        const done = result.legs.find((l) => l.venue === leg.venue);
        if (!done || done.amountIn !== leg.amountIn || done.amountOut < leg.minAmountOut) {
          throw new AdapterError(adapter.name, "execute", new Error(`leg at ${leg.venue} was not executed as asked`));
        }
        legs.push({ ...done, chain: this.chains[owner]!, path: done.path ?? [execution.from, execution.to] });
      }
    }
    return { status: "executed", legs };
  }
}

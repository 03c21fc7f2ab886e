import type { ConfigurationCheck } from "./chain";

/**
 * The venue port: where conversions execute. Implemented by the simulated venues
 * (`adapters/venues/simulated`, tests and `npm start`) and by real venue adapters.
 *
 * A venue only reports its liquidity exactly and executes what the core decided: the split of
 * an order across venues, the fees and the rates are computed by the core on the snapshots
 * (research §2 to §4), so every adapter is priced by the same exact integer formulas.
 *
 * Every call happens outside storage transactions. `execute` is idempotent by an id the engine
 * chose and stored beforehand, so a crash between the call and the commit repeats it harmlessly.
 * The core wraps every adapter with `guardMethods`: whatever an adapter throws reaches the core
 * as an `AdapterError` naming it.
 */
export interface VenueAdapter {
  /** Adapter name for error messages, e.g. `simulated`. */
  readonly name: string;
  /**
   * A simulation (the simulated venues, a test's scripted one): it serves test-mode accounts
   * only. Any other adapter is a real market and serves live accounts only, as chain adapters
   * are separated (`ChainAdapter.testModeOnly`): a live account is never priced or filled by a
   * simulation, and a test account's play money never reaches a real pool.
   */
  readonly testModeOnly?: boolean;
  /**
   * The chain an adapter's venues trade on, when they are on-chain pools (the Uniswap v2
   * adapter: its hot wallet's chain): a swap's input leaves from it and its output arrives on
   * it, so the core refuses a swap into another chain (`chain_unsupported`) until a bridge
   * exists. Absent for venues that deliver wherever the engine books it (the simulations).
   */
  readonly chain?: string;
  /**
   * The current liquidity of every venue this adapter offers for selling `from` into `to`
   * (asset codes the engine knows; never equal), one snapshot per venue, or none when it does
   * not trade the pair. Called on every quote, swap refresh and limit-order match step; must be
   * cheap and must not move prices. Venue names are unique across all adapters of an engine.
   */
  snapshot(from: string, to: string): Promise<VenueSnapshot[]>;
  /**
   * Executes legs the core priced on snapshots taken at `pricedAt`. A venue that honours a past
   * snapshot (a firm-quote maker, the simulated venues within their firm window) executes at
   * it; one that cannot (an on-chain pool) executes at its current state. Either way a leg that
   * would deliver less than its `minAmountOut` refuses the whole execution and nothing moves.
   *
   * Idempotent by `executionId`: a repeated call returns the first call's result and executes
   * nothing. Throws only for transient failures (the engine retries later with the same id); a
   * permanent refusal is returned as `{ status: "rejected" }`.
   */
  execute(request: VenueExecution): Promise<VenueExecutionResult>;
  /**
   * Optional, for real venues: checks the configuration against the chain or market (each
   * token's decimals against its asset's, the contracts exist), one line per check, as
   * `ChainAdapter.checkConfiguration` does; a host refuses to start on a `fail`.
   */
  checkConfiguration?(): Promise<ConfigurationCheck[]>;
}

/**
 * One venue's liquidity for a directed pair, in base units of the input X and output Y: a
 * constant-product pool, a book, or a route through several constant-product pools (a router's
 * multi-hop path, priced hop by hop).
 */
export type VenueSnapshot = PoolSnapshot | BookSnapshot | RouteSnapshot;

/** The parts every snapshot has. */
export interface SnapshotBase {
  /** Venue name, unique across the engine's adapters; shown in quotes as `venues[].name`. */
  venue: string;
  /**
   * Fixed cost of using this venue at all (gas, a withdrawal fee), in output base units,
   * already rounded up. Charged once per order that uses the venue, as the quote's
   * `network_fee`; it makes the split a mixed-integer problem (research §3.4).
   */
  networkCost: bigint;
}

/**
 * A constant-product pool with a fee on the input: output for input `a` is Uniswap v2's
 * `floor(a·(F−fee)·reserveOut / (reserveIn·F + a·(F−fee)))` with F = 1,000,000 (research §2.1).
 */
export interface PoolSnapshot extends SnapshotBase {
  kind: "pool";
  /** Reserve of the input asset, base units, > 0. */
  reserveIn: bigint;
  /** Reserve of the output asset, base units, > 0. */
  reserveOut: bigint;
  /** Fee in parts per million of the input, 0 to 999,999. */
  feePpm: bigint;
}

/**
 * An order book walked from the best level, already converted to the input side (research
 * §2.2): selling base into bids, or buying base from asks with the quote asset. Output for
 * input `a` is the sum over the levels it reaches of `floor(taken·rateNum/rateDen)`, less the
 * taker fee rounded up.
 */
export interface BookSnapshot extends SnapshotBase {
  kind: "book";
  /** Best first: rates (output per input, base units) never increase down the list. */
  levels: BookLevel[];
  /** Taker fee in parts per million of the output, 0 to 999,999. */
  takerFeePpm: bigint;
}

/**
 * A multi-hop route through constant-product pools (Uniswap v2's router: USDC→WETH→USDT), from
 * the input X through intermediate assets to the output Y. Output for input `a` is each hop's
 * pool formula applied in turn, each rounded down (exactly what the router's `getAmountsOut`
 * gives). The routes one adapter offers for a pair must not share a pool with each other or
 * with its direct pool: the core prices each venue as if no other venue moved it.
 */
export interface RouteSnapshot extends SnapshotBase {
  kind: "route";
  /** Two or more hops, in trading order: the first takes X, the last pays Y. */
  hops: PoolHop[];
}

/** One pool of a route, seen in the route's direction (its input reserve first). */
export interface PoolHop {
  /** Reserve of this hop's input asset, base units, > 0. */
  reserveIn: bigint;
  /** Reserve of this hop's output asset, base units, > 0. */
  reserveOut: bigint;
  /** Fee in parts per million of this hop's input, 0 to 999,999. */
  feePpm: bigint;
}

export interface BookLevel {
  /** Output base units per input base unit, as the fraction rateNum / rateDen (both > 0). */
  rateNum: bigint;
  rateDen: bigint;
  /** Input base units this level takes at most, > 0. */
  capacityIn: bigint;
}

export interface VenueExecution {
  /** Engine-chosen id (a swap id, or a limit-order fill id), stored before the call. */
  executionId: string;
  from: string;
  to: string;
  /** When the snapshots the legs were priced on were taken (epoch ms, the engine's clock). */
  pricedAt: number;
  /** One leg per venue of this adapter; amounts in base units, `amountIn` > 0. */
  legs: { venue: string; amountIn: bigint; minAmountOut: bigint }[];
}

export type VenueExecutionResult = { status: "executed"; legs: ExecutedLeg[] } | { status: "rejected"; reason: string };

/** One leg as a venue executed it. */
export interface ExecutedLeg {
  venue: string;
  amountIn: bigint;
  /** What the leg delivered, base units of the output (at least the leg's `minAmountOut`). */
  amountOut: bigint;
  /**
   * For an on-chain venue: the transaction that carried the leg and its block, so a swap or fill
   * can be found on the chain (`VenueAdapter.chain` names the chain). Absent for venues off chain.
   */
  transaction?: { txHash: string; block: number };
  /** The assets the leg traded through, in order (a route's hops: `["USDC", "ETH", "USDT"]`); default the pair. */
  path?: string[];
}

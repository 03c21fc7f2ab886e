/**
 * The venue port: where swaps and limit-order fills execute. Quoting is done by the core on the
 * venues' state (research §2 and §3), so a venue only reports its liquidity exactly and executes
 * what the core decided.
 */
export interface VenueAdapter {
  /** Adapter name for error messages. */
  readonly name: string;
  /**
   * Current liquidity for selling `from` into `to`, one snapshot per venue. Called on every
   * quote and every limit-order match; must be cheap and must not move prices.
   */
  snapshot(from: string, to: string): Promise<VenueSnapshot[]>;
  /**
   * Executes the legs of a swap at the snapshot the quote used or better. Idempotent by
   * `executionId`: a repeated call returns the first result. Returns what each leg delivered.
   */
  execute(request: VenueExecution): Promise<{ legs: { venue: string; amountOut: bigint }[] } | { rejected: string }>;
}

/** One venue's liquidity in base units of the pair (input X, output Y). */
export type VenueSnapshot = PoolSnapshot | BookSnapshot;

/** Constant-product pool with a fee (Uniswap v2 integer formulas, research §2.1). */
export interface PoolSnapshot {
  kind: "pool";
  venue: string;
  reserveIn: bigint;
  reserveOut: bigint;
  /** Fee in parts per million of the input. */
  feePpm: bigint;
  /** Fixed network cost of using this venue, in output base units. */
  networkCost: bigint;
}

/** Order book levels converted to the input side, best first (research §2.2). */
export interface BookSnapshot {
  kind: "book";
  venue: string;
  /** Each level: output per input as a fraction, and how much input it takes. */
  levels: { rateNum: bigint; rateDen: bigint; capacityIn: bigint }[];
  /** Taker fee in parts per million of the output. */
  takerFeePpm: bigint;
  networkCost: bigint;
}

export interface VenueExecution {
  /** Engine-chosen id (a swap or fill id). */
  executionId: string;
  from: string;
  to: string;
  legs: { venue: string; amountIn: bigint; minAmountOut: bigint }[];
}

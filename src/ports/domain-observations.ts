/**
 * What the engine and its chain adapters report about the business they do, for the metrics an
 * operator pages on (`EngineObserver.domainObserved`): payout and leg outcomes with the time to
 * settle, deposits detected and how late, hot-wallet balances, and what chain adapters see of
 * their chains (head and last block read, reorganisations, re-sent and replaced transactions).
 *
 * Every field an exporter would turn into a label is bounded: chain, asset, mode, outcome, reason.
 * No account, payout, endpoint or transaction id is carried: those belong in logs, not metrics.
 * Durations are milliseconds on the engine's clock.
 */
export type DomainObservation = PayoutFinished | LegFinished | DepositDetected | HotWalletBalance | ReconciliationObserved | ModedChainObservation;

/** A payout reached a final status (committed). */
export interface PayoutFinished {
  type: "payout_finished";
  asset: string;
  livemode: boolean;
  outcome: "settled" | "partially_settled" | "failed" | "canceled";
  /** From the payout's creation to this final status. */
  durationMs: number;
}

/** A leg of a payout reached a final status (committed). */
export interface LegFinished {
  type: "leg_finished";
  chain: string;
  asset: string;
  livemode: boolean;
  outcome: "confirmed" | "failed";
  /** Why it failed (`broadcast_rejected`, `transfer_failed`, `payout_canceled`), or null when confirmed. */
  reason: string | null;
}

/** The engine learnt of a deposit for the first time (committed). */
export interface DepositDetected {
  type: "deposit_detected";
  chain: string;
  asset: string;
  livemode: boolean;
  /** From the block's time (`InboundTransfer.seenAt`) to the engine reading it; never below 0. */
  delayMs: number;
}

/** The engine read a hot wallet's spendable balance (`ChainAdapter.liquidity`, when routing a payout). */
export interface HotWalletBalance {
  type: "hot_wallet_balance";
  chain: string;
  asset: string;
  livemode: boolean;
  /** In whole units of the asset (a float: good for a gauge, not for accounting). */
  balance: number;
}

/** A chain's holdings of an asset were compared with the books (docs/reconciliation.md), kept as a record or not. */
export interface ReconciliationObserved {
  type: "reconciliation";
  chain: string;
  asset: string;
  livemode: boolean;
  /** `on_chain − in_books` in whole units of the asset (a float, for a gauge: 0 when balanced). */
  difference: number;
  /** The reading is a drift (a difference, or money on a deposit address never read). */
  drift: boolean;
}

/**
 * What a chain adapter reports of its chains, through the function the engine hands to
 * `ChainAdapter.observe`. Call it synchronously, after the fact, and cheaply (no I/O).
 */
export type ChainObservation = ChainHead | ChainReorg | TransactionRescued;

/** The adapter read the chain: the node's head and the last block it has read (scanned for deposits). */
export interface ChainHead {
  type: "chain_head";
  chain: string;
  head: number;
  /** The highest block read so far; `head - lastBlockRead` is how far behind the reading is. */
  lastBlockRead: number;
}

/** The adapter found a reorganisation: `depth` blocks it had read were replaced. */
export interface ChainReorg {
  type: "chain_reorg";
  chain: string;
  /** Blocks replaced, or null when the adapter cannot tell (it only saw something it had read leave the chain). */
  depth: number | null;
}

/**
 * A transaction the adapter sent needed help: `resent` (the node lost it), `replaced` (stuck too
 * long, sent again with a higher fee) or `dropped` (its nonce went to another transaction).
 */
export interface TransactionRescued {
  type: "transaction_rescued";
  chain: string;
  action: "resent" | "replaced" | "dropped";
}

/** A chain adapter's observation as the engine passes it on: with the mode of the adapter (a simulator is test mode). */
export type ModedChainObservation = ChainObservation & { livemode: boolean };

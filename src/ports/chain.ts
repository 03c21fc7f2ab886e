import type { ChainObservation } from "./domain-observations";

/**
 * The chain port: moving an asset on one chain out of the engine's hot wallets, and watching
 * deposits come in. Implemented by the simulated chains (test mode, `npm start`) and by real
 * chain adapters. The core validates and normalises everything first: chains and assets are
 * known names, amounts are positive base units of the asset, addresses are valid for the chain.
 *
 * Every call happens outside storage transactions. Calls that move value are idempotent by an id
 * the engine chose beforehand, so a crash between the call and the commit repeats it harmlessly.
 */
export interface ChainAdapter {
  /** Adapter name for error messages, e.g. `simulated`. */
  readonly name: string;
  /** Chain names this adapter serves. */
  readonly chains: readonly string[];
  /**
   * True for simulations: the engine uses such an adapter for test-mode accounts only, so a live
   * account can never "settle" against a simulator. Default false.
   */
  readonly testModeOnly?: boolean;

  /** Timing of a chain, for scheduling confirmation polls. Called when a payout is tracked. */
  describe(chain: string): Promise<ChainInfo>;
  /**
   * The cost model of sending `asset` on `chain` (research §8.2): a fixed fee per transaction
   * plus a proportional part, both in the asset's base units, and an optional per-transaction
   * cap. Called by routing for every candidate chain of a payout. Null when the adapter cannot
   * send the asset there now (no token configured, no price for its gas): the chain is then no
   * candidate, as if no adapter served it. `{ unavailable }` instead of null says why in words a
   * host can act on (the setting that is missing): the payout's refusal quotes it.
   */
  feeSchedule(chain: string, asset: string): Promise<FeeSchedule | FeeUnavailable | null>;
  /** Hot-wallet balance available to send `asset` on `chain`, in base units. Called by routing. */
  liquidity(chain: string, asset: string): Promise<bigint>;
  /**
   * Sends a transfer. Idempotent by `transferId`: a repeated call returns the first call's
   * outcome, the same transaction hash or the same refusal, and sends nothing (the engine may
   * repeat a call after a crash). Throws only for transient failures, when nothing was decided
   * (the engine calls again later); a refusal is returned as `{ rejected }` and fails the leg.
   */
  broadcast(transfer: OutboundTransfer): Promise<BroadcastOutcome>;
  /**
   * Optional: many broadcasts in one call, outcomes in the order given, each as `broadcast`
   * would answer it (idempotent by `transferId` likewise). Throws only when nothing was decided
   * for any of them. The payout workers send a chunk of a batch through it, one call per
   * adapter, when the adapter has it (the simulated chains decide a chunk in one storage
   * transaction instead of one per leg); otherwise they call `broadcast` per transfer.
   */
  broadcastMany?(transfers: readonly OutboundTransfer[]): Promise<BroadcastOutcome[]>;
  /**
   * Where a broadcast transaction stands. Called by the confirmation worker about every block
   * while the transfer is in flight; a real adapter also re-sends a transaction the node lost
   * and replaces one stuck too long here (the same transfer with a higher fee), and then reports the hash
   * that now carries the transfer (`TransferStatus.txHash`).
   */
  transferStatus(chain: string, txHash: string): Promise<TransferStatus>;
  /**
   * Optional: `transferStatus` of many transactions of `chain` in one call, in the order given.
   * Throws only for a transient failure of the whole call. The tracking worker asks through it,
   * one call per chain, when the adapter has it.
   */
  transferStatusMany?(chain: string, txHashes: readonly string[]): Promise<TransferStatus[]>;

  /**
   * A deposit address on `chain` for `asset`, unique to `intentId`; the same arguments always
   * return the same address.
   */
  depositAddress(chain: string, asset: string, intentId: string): Promise<string>;
  /**
   * Inbound transfers to engine deposit addresses on `chain` changed since `cursor` (null: from
   * the start), with their current confirmations and finality. Notifications may repeat or arrive
   * out of order; the core treats them as idempotent by `transferId`.
   */
  inboundTransfers(chain: string, cursor: string | null): Promise<{ transfers: InboundTransfer[]; cursor: string }>;
  /**
   * Optional, for adapters that keep deposits on per-intent addresses (`adapters/chains/evm`): moves
   * final deposits of `chain` to the hot wallet, one step at a time (top the address up with
   * gas, send, follow to finality), idempotently. Called by background work after a read
   * reported a final deposit, and again about every block while it returns `pending: true`.
   * A sweep never changes any account's balance: the deposits were the operator's custody
   * before and after.
   */
  sweepDeposits?(chain: string): Promise<{ pending: boolean }>;
  /**
   * Optional, for adapters of real chains: checks the configuration against the chain itself
   * (the node's chain id against the chain's, each token's decimals and symbol against its
   * asset's, a price for gas in each payout asset), one line per check. A host runs it as it
   * starts, refusing to start on a `fail` and logging each `warning`, and `payrail doctor` prints
   * it. Throws only when the chain cannot be asked. An adapter that checks should also refuse to
   * move money while a check it depends on fails (a wrong `decimals()` would price, credit and
   * pay every amount wrongly by powers of ten).
   */
  checkConfiguration?(): Promise<ConfigurationCheck[]>;
  /**
   * Optional, for reconciliation (docs/reconciliation.md): what the engine's addresses on `chain`
   * hold of `asset`, read from the chain itself at one point (`at`), and what the adapter knows
   * moved through them that the books post later or never (network fees, transfers carried but
   * not yet final). Null when the adapter keeps none of `asset` on `chain` (no token configured).
   * The engine compares it with its ledger; an adapter without it is not reconciled.
   */
  holdings?(request: HoldingsRequest): Promise<ChainHoldings | null>;
  /**
   * Optional: the engine hands the adapter where to report what it sees of its chains (metrics:
   * `ChainObservation`, the head and last block read, reorganisations, re-sent and replaced
   * transactions), once, as it starts. `report` is synchronous and cheap; call it after the fact.
   * An adapter given to several engines reports to the last one.
   */
  observe?(report: (observation: ChainObservation) => void): void;
}

/** What a configuration check found (`ChainAdapter.checkConfiguration`, `VenueAdapter.checkConfiguration`). */
export interface ConfigurationCheck {
  /** What was checked, as the configuration names it: `base: chain id`, `base.tokens.USDC: decimals()`. */
  subject: string;
  /** `ok`; `warning`: works, but something a host should fix; `fail`: the adapter refuses to work. */
  outcome: "ok" | "warning" | "fail";
  /** One line: what was found, and on a mismatch both values. */
  message: string;
}

/** What the engine asks of a chain to reconcile one asset (`ChainAdapter.holdings`). */
export interface HoldingsRequest {
  chain: string;
  asset: string;
  /**
   * Transfers (`OutboundTransfer.transferId`: legs between their claim and finality) the books
   * still hold reserved: the answer says which of them the chain has carried as of `at`.
   */
  unbooked: readonly string[];
  /** `at` of the last reading that balanced: history older than it need not be searched for explanations. Null: none yet. */
  since: string | null;
}

/** What the engine's addresses on a chain hold of one asset, as the chain says (`ChainAdapter.holdings`). */
export interface ChainHoldings {
  /** Where the chain was read, as text (an EVM block number, a Solana slot, a simulation's height). */
  at: string;
  /** The hot wallet and what it holds (base units). */
  hotWallet: { address: string; amount: bigint };
  /**
   * Every deposit address of the adapter holding the asset, with what it holds and what the
   * deposits the adapter read on it account for (`expected`: the deposits not reverted, less what
   * was swept out): an address holding more than its deposits received money the adapter never
   * read. `expected` null: the adapter cannot tell (the native asset of an EVM address, whose gas
   * top-ups and sweeps' gas leave dust).
   */
  depositAddresses: { address: string; amount: bigint; expected: bigint | null }[];
  /**
   * Network fees the engine's own transactions on the chain have paid in `asset`, in all, every
   * transaction the chain carried as of `at`, final or not (0 for a token the chain charges no fees in).
   */
  feesPaid: bigint;
  /** Of `unbooked`, those the chain has carried as of `at` (their amounts have left the hot wallet). */
  carried: string[];
  /**
   * Transfers into (positive) or out of (negative) the engine's addresses, since `since`, that the
   * adapter neither made nor read as a deposit: what may explain a difference.
   */
  unknownTransfers: { txHash: string; address: string; amount: bigint; at: string | null }[];
}

/** Why an adapter cannot send an asset on a chain now (`ChainAdapter.feeSchedule`), for the payout's refusal. */
export interface FeeUnavailable {
  /** One line naming what is missing, e.g. the setting that prices gas in the asset. */
  unavailable: string;
}

/** What a broadcast came to: the transaction's hash, or a refusal (the leg fails). */
export type BroadcastOutcome = { txHash: string } | { rejected: string };

export interface ChainInfo {
  /** Typical time between blocks. */
  blockTimeMs: number;
  /** Confirmations after which a transaction is final. */
  confirmationsToFinality: number;
}

export interface FeeSchedule {
  /** Fee per transaction, in base units of the asset sent. */
  fixed: bigint;
  /** Proportional fee in parts per million of the amount (the core rounds it up, per leg). */
  proportionalPpm: bigint;
  /** Largest amount one transaction may carry (a leg above it is sent as several), or null. */
  perTransferCap: bigint | null;
}

export interface OutboundTransfer {
  /** Engine-chosen id (a leg id); the idempotency key of the broadcast. */
  transferId: string;
  chain: string;
  asset: string;
  amount: bigint;
  to: string;
}

export type Finality = "pending" | "included" | "final" | "reverted";

export interface TransferStatus {
  confirmations: number;
  finality: Finality;
  /** Set when the transfer failed for good (it will never be final). */
  failure: string | null;
  /**
   * What the chain charged for the transfer, in base units of the asset sent, once final, when
   * the adapter knows it (a real chain: gas used at its price, converted). The leg's fee beyond
   * it is the house's margin. Absent: the leg's fee is what the network took.
   */
  feePaid?: bigint | null;
  /**
   * The hash of the transaction that carries the transfer now, when it is no longer the one
   * `broadcast` returned (a fee replacement was mined); absent otherwise.
   */
  txHash?: string;
}

export interface InboundTransfer {
  /** Stable id of this transfer on the chain (e.g. tx hash and log index). */
  transferId: string;
  chain: string;
  asset: string;
  /** The engine deposit address that received it. */
  address: string;
  amount: bigint;
  txHash: string;
  confirmations: number;
  finality: Finality;
  /** Chain time of inclusion, epoch milliseconds. */
  seenAt: number;
}

/**
 * What a simulated chain lets test helpers do (docs/decisions.md §7): mine blocks now, reorganise the
 * tip, and pay a deposit address. Real adapters do not implement it; the test-helper routes
 * answer 404 without it.
 */
export interface ChainSimulationControl {
  /**
   * Mines `blocks` blocks on `chain` at once. With `owner`, only in that owner's view: the
   * deposits it was paid (`pay` with the same `owner`) gain the confirmations, nothing else.
   */
  advance(chain: string, blocks: number, owner?: string): Promise<void>;
  /**
   * Replaces the last `depth` blocks of `chain`; returns how many transfers they held. With
   * `owner`, only that owner's view: its deposits in those blocks are gone, nobody else's
   * transfer moves.
   */
  reorg(chain: string, depth: number, owner?: string): Promise<number>;
  /** Current height of `chain` (as `owner` sees it, with the blocks mined in its view). */
  height(chain: string, owner?: string): Promise<number>;
  /**
   * A payer sends `amount` of `asset` to `address` on `chain`: an inbound transfer, included in
   * the next block. Returns it as `inboundTransfers` will report it, once it is kept for good
   * (a restart of the simulation does not lose it). `owner` puts it in that owner's view;
   * `key` makes the payment once: a second call with the same owner and key pays nothing and
   * answers the transfer of the first.
   */
  pay(transfer: { chain: string; asset: string; address: string; amount: bigint; owner?: string; key?: string }): Promise<InboundTransfer>;
}

export function isChainSimulation(adapter: unknown): adapter is ChainSimulationControl {
  const a = adapter as Partial<ChainSimulationControl> | null;
  return !!a && typeof a.advance === "function" && typeof a.reorg === "function" && typeof a.height === "function" && typeof a.pay === "function";
}

import type { Transport } from "viem";
import type { AssetRegistry, Clock, StorageAdapter, GasPricer } from "../../../src/ports/public";
import type { EvmSigner } from "./evm-signer";

/** One EVM chain as a host configures it (docs/decisions.md §9, `PAYRAIL_CHAINS`). */
export interface EvmChainOptions {
  /** A chain of the asset registry of family `evm` (`ethereum`, `polygon`, `arbitrum`, `base`). */
  chain: string;
  /** How to reach a node: `http(rpcUrl)` from viem, or `custom(provider)` for an in-process one. */
  transport: Transport;
  /** The engine's storage (the adapter keeps its nonces, transactions and deposits there). */
  storage: StorageAdapter;
  /** Holds the keys: `MnemonicSigner`, or a remote signer behind the same port. */
  signer: EvmSigner;
  /** The engine's clock (stuck-transaction timing). Default: the system clock. */
  clock?: Clock;
  assets?: AssetRegistry;
  /** Asset code → token contract on this chain; the native asset needs none. */
  tokens: Record<string, string>;
  /** Confirmations at which a transaction is final. Default per chain (`EVM_CHAIN_DEFAULTS`). */
  finalityConfirmations?: number;
  /** Typical time between blocks, for polling. Default per chain. */
  blockTimeMs?: number;
  /** A transaction still unmined after this long is replaced with a higher fee (default 3 min). */
  replaceAfterMs?: number;
  /**
   * What one whole unit of the chain's gas asset is worth in each payout asset (`{"USDC":
   * "3000"}`), for `network_fee`; used before the venues (`pricer`), and the only way to price
   * a gas asset the venues do not trade (Polygon's POL).
   */
  feeRates?: Record<string, string>;
  /** Prices gas in payout assets through the engine's venues (`venueGasPricer(venues)`). */
  pricer?: GasPricer;
  /**
   * Expected `eth_chainId`: default the chain's own (`EVM_CHAIN_DEFAULTS`: base 8453, …); set it
   * to run a chain name on another network (a test node, a testnet). The adapter refuses to work
   * against another chain (`checkConfiguration`).
   */
  chainId?: number;
  /** Blocks read per deposit poll at most (a long catch-up takes several polls). Default 500. */
  maxBlocksPerRead?: number;
  /** First block to read deposits from when nothing was read yet. Default: where the first address was made. */
  startBlock?: number;
}

export interface EvmChainDefaults {
  /** The chain's `eth_chainId` on its main network; null for a chain payrail knows no id of (then `chainId` should be set). */
  chainId: number | null;
  blockTimeMs: number;
  finalityConfirmations: number;
  /** The chain's gas asset: its code, decimals, and whether the engine's registry carries it. */
  gasAsset: { code: string; decimals: number };
}

/**
 * Per chain: its chain id, typical block time, the confirmations after which payrail treats a transaction as
 * final (deep enough that the chain's observed reorganisations do not reach it), and the gas
 * asset. Hosts override `finality_confirmations` in `PAYRAIL_CHAINS`.
 */
export const EVM_CHAIN_DEFAULTS: Record<string, EvmChainDefaults> = {
  ethereum: { chainId: 1, blockTimeMs: 12_000, finalityConfirmations: 12, gasAsset: { code: "ETH", decimals: 18 } },
  polygon: { chainId: 137, blockTimeMs: 2_000, finalityConfirmations: 64, gasAsset: { code: "POL", decimals: 18 } },
  arbitrum: { chainId: 42161, blockTimeMs: 250, finalityConfirmations: 20, gasAsset: { code: "ETH", decimals: 18 } },
  base: { chainId: 8453, blockTimeMs: 2_000, finalityConfirmations: 12, gasAsset: { code: "ETH", decimals: 18 } },
};

export const DEFAULT_REPLACE_AFTER_MS = 180_000;

import type { AssetRegistry, Clock, GasPricer, StorageAdapter } from "../../../src/ports/public";
import type { SolanaSigner } from "./solana-signer";

/** The Solana chain as a host configures it (`PAYRAIL_CHAINS.solana`, docs/chains.md). */
export interface SolanaChainOptions {
  /** The asset registry's chain of family `solana` (default `solana`). */
  chain?: string;
  /** A Solana JSON-RPC endpoint (http or https). */
  rpcUrl: string;
  /** The engine's storage (the adapter keeps its transactions, addresses and deposits there). */
  storage: StorageAdapter;
  /** Holds the keys: `MnemonicSolanaSigner`, or a remote signer behind the same port. */
  signer: SolanaSigner;
  clock?: Clock;
  assets?: AssetRegistry;
  /** Asset code → SPL mint; SOL needs none. */
  tokens: Record<string, string>;
  /**
   * The commitment the adapter reads state at before it signs (balances, whether an account
   * exists, the blockhash): `confirmed` (default) or `finalized`. Finality is always `finalized`.
   */
  commitment?: "confirmed" | "finalized";
  /** The confirmations the engine sees for a finalized transaction (default 32, Solana's maximum lockout). */
  finalityConfirmations?: number;
  /** Typical slot time, for polling (default 400 ms). */
  blockTimeMs?: number;
  /** What one SOL is worth in each payout asset (`{"USDC": "150"}`), for `network_fee`; before the venues. */
  feeRates?: Record<string, string>;
  /** Prices SOL in payout assets through the engine's venues. */
  pricer?: GasPricer;
  /** Priority fee floor and cap in micro-lamports per compute unit (default 1000 and 1,000,000). */
  priorityFee?: { min?: bigint; max?: bigint };
  /** Signatures asked per `getSignaturesForAddress` call (default 1000, the most a node answers; lower for providers that cap it). */
  signaturesPerCall?: number;
  /** Lamports the hot wallet keeps for fees and rent: not offered as SOL liquidity (default 0.05 SOL). */
  reserveLamports?: bigint;
}

export const SOLANA_DEFAULTS = {
  finalityConfirmations: 32,
  blockTimeMs: 400,
  priorityFee: { min: 1_000n, max: 1_000_000n },
  reserveLamports: 50_000_000n,
  gasAsset: { code: "SOL", decimals: 9 },
} as const;

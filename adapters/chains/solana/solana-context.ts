import type { ChainObservation, Clock } from "../../../src/ports/public";
import type { SolanaRpc } from "./solana-rpc";
import type { SolanaSigner } from "./solana-signer";
import type { SolanaState } from "./solana-state";

/** A configured SPL token: its mint and decimals. */
export interface SolanaToken {
  mint: string;
  decimals: number;
}

/** What the parts of the Solana adapter share (`solana-sender`, `solana-deposits`). */
export interface SolanaContext {
  readonly chain: string;
  readonly rpc: SolanaRpc;
  readonly signer: SolanaSigner;
  readonly clock: Clock;
  /** Confirmations reported for a finalized transaction (the node decides finality; this is the number the engine sees). */
  readonly finalityConfirmations: number;
  /** Asset code → mint. */
  readonly tokens: ReadonlyMap<string, SolanaToken>;
  /** `SOL` when the asset registry carries it on this chain. */
  readonly nativeAsset: string | null;
  /** Floor and cap of the priority fee, micro-lamports per compute unit. */
  readonly priorityFee: { min: bigint; max: bigint };
  /** One storage transaction over the adapter's state (namespace `solana`). */
  transaction<T>(fn: (tx: SolanaState) => Promise<T>): Promise<T>;
  /** The hot wallet's address (key 0). */
  hotWallet(): Promise<string>;
  /** Reports what the adapter sees of the chain to the engine (`ChainAdapter.observe`; nowhere before). */
  report(observation: ChainObservation): void;
}

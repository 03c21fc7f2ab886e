import type { ChainObservation, Clock } from "../../../src/ports/public";
import type { EvmSigner } from "./evm-signer";
import type { EvmRpc } from "./evm-rpc";
import type { EvmState } from "./evm-state";

/** What the parts of one EVM chain adapter share (`evm-sender`, `evm-deposits`, `evm-sweeps`). */
export interface EvmContext {
  readonly chain: string;
  readonly rpc: EvmRpc;
  readonly signer: EvmSigner;
  readonly clock: Clock;
  readonly finalityConfirmations: number;
  readonly blockTimeMs: number;
  readonly replaceAfterMs: number;
  /** Asset code → token contract (checksummed). */
  readonly tokens: ReadonlyMap<string, string>;
  /** The gas asset's code when the engine's registry carries it (payouts in it are value transfers). */
  readonly nativeAsset: string | null;
  /** One storage transaction over the adapter's state (namespace `evm`). */
  transaction<T>(fn: (tx: EvmState) => Promise<T>): Promise<T>;
  /** The hot wallet's address (key 0). */
  hotWallet(): Promise<string>;
  /** The node's chain id, checked once against the configured one. */
  chainId(): Promise<number>;
  /** Reports what the adapter sees of the chain to the engine (`ChainAdapter.observe`; nowhere before). */
  report(observation: ChainObservation): void;
}

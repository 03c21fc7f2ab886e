export { EvmChain, type HotWalletCall, type HotWalletCallOutcome } from "./evm-chain";
export { EVM_CHAIN_DEFAULTS, type EvmChainOptions, type EvmChainDefaults } from "./evm-config";
export { MnemonicSigner } from "./mnemonic-signer";
export type { EvmSigner, EvmTransactionRequest } from "./evm-signer";
export {
  EVM_NAMESPACE,
  type EvmAddressRecord,
  type EvmBlockRecord,
  type EvmDepositRecord,
  type EvmSweepRecord,
  type EvmTransactionAttempt,
  type EvmTransactionRecord,
} from "./evm-state";
export { parseChainsConfig, evmChainsFromConfig, type ChainsConfig } from "./chains-config";
export { venueGasPricer, ratioOfPrice, type GasPricer } from "../../../src/ports/public";

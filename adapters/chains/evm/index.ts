export { EvmChain } from "./evm-chain";
export { EVM_CHAIN_DEFAULTS, type EvmChainOptions, type EvmChainDefaults } from "./evm-config";
export { MnemonicSigner } from "./mnemonic-signer";
export { parseChainsConfig, evmChainsFromConfig, type ChainsConfig } from "./chains-config";
export { venueGasPricer, ratioOfPrice, type GasPricer } from "../../../src/quoting/gas-pricer";

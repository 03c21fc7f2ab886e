export { SolanaChain } from "./solana-chain";
export { SOLANA_DEFAULTS, type SolanaChainOptions } from "./solana-config";
export { MnemonicSolanaSigner, deriveEd25519, solanaPath, type SolanaSigner } from "./solana-signer";
export {
  SOLANA_NAMESPACE,
  type SolanaAddressRecord,
  type SolanaAttempt,
  type SolanaDepositRecord,
  type SolanaPlan,
  type SolanaTransactionRecord,
  type SolanaWatchRecord,
} from "./solana-state";
export { associatedTokenAccount } from "./solana-addresses";
export { parseSolanaChainConfig, solanaChainFromConfig, type SolanaChainConfigEntry } from "./solana-chains-config";

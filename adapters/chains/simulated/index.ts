export { SimulatedChains, type SimulatedChainsOptions } from "./simulated-chains";
export { DEFAULT_SIMULATED_CHAINS, type SimulatedChainConfig } from "./defaults";
export { SIMULATED_NAMESPACE, type SentOutcome, type SimulatedDepositRecord } from "./simulated-state";

/** How one simulated chain behaves. Amounts are decimal strings in the asset's units. */
export interface SimulatedChainConfig {
  blockTimeMs: number;
  confirmationsToFinality: number;
  /** Per asset: fixed fee per transfer, proportional fee (ppm) and optional per-transfer cap. */
  fees: Record<string, { fixed: string; proportionalPpm: number; perTransferCap?: string }>;
  /** Per asset: hot-wallet liquidity at start. */
  liquidity: Record<string, string>;
  /** Share of transfers (0 to 1) that fail, decided by the seed and the transfer id. */
  failureRate?: number;
  /** How those transfers fail: refused at broadcast, or mined and reverted. Default `rejected`. */
  failureMode?: "rejected" | "reverted";
}

/**
 * Defaults for `npm start` and tests: every chain reaches finality within about 5 seconds
 * (docs/decisions.md §8), fees follow the shape of Circle Gateway's table (fixed per leg, Ethereum
 * dear, L2s cheap, plus 0.005 %), and USDC on Ethereum carries a 10,000,000 per-transfer cap
 * (CCTP's burn limit).
 */
export const DEFAULT_SIMULATED_CHAINS: Record<string, SimulatedChainConfig> = {
  ethereum: {
    blockTimeMs: 1_000,
    confirmationsToFinality: 4,
    fees: {
      USDC: { fixed: "2", proportionalPpm: 50, perTransferCap: "10000000" },
      USDT: { fixed: "2", proportionalPpm: 50 },
      EURC: { fixed: "2", proportionalPpm: 50 },
      ETH: { fixed: "0.0005", proportionalPpm: 0 },
    },
    liquidity: { USDC: "5000000", USDT: "5000000", EURC: "2000000", ETH: "2000" },
  },
  polygon: {
    blockTimeMs: 500,
    confirmationsToFinality: 8,
    fees: { USDC: { fixed: "0.0015", proportionalPpm: 50 }, USDT: { fixed: "0.0015", proportionalPpm: 50 } },
    liquidity: { USDC: "1000000", USDT: "1000000" },
  },
  arbitrum: {
    blockTimeMs: 250,
    confirmationsToFinality: 12,
    fees: {
      USDC: { fixed: "0.01", proportionalPpm: 50 },
      USDT: { fixed: "0.01", proportionalPpm: 50 },
      ETH: { fixed: "0.000002", proportionalPpm: 0 },
    },
    liquidity: { USDC: "2000000", USDT: "2000000", ETH: "1000" },
  },
  base: {
    blockTimeMs: 500,
    confirmationsToFinality: 6,
    fees: {
      USDC: { fixed: "0.01", proportionalPpm: 50 },
      EURC: { fixed: "0.01", proportionalPpm: 50 },
      ETH: { fixed: "0.000002", proportionalPpm: 0 },
    },
    liquidity: { USDC: "2000000", EURC: "1000000", ETH: "1000" },
  },
  solana: {
    blockTimeMs: 400,
    confirmationsToFinality: 8,
    fees: {
      USDC: { fixed: "0.001", proportionalPpm: 50 },
      USDT: { fixed: "0.001", proportionalPpm: 50 },
      EURC: { fixed: "0.001", proportionalPpm: 50 },
      SOL: { fixed: "0.000005", proportionalPpm: 0 },
    },
    liquidity: { USDC: "2000000", USDT: "2000000", EURC: "1000000", SOL: "100000" },
  },
  bitcoin: {
    blockTimeMs: 1_500,
    confirmationsToFinality: 3,
    fees: { BTC: { fixed: "0.00002", proportionalPpm: 0 } },
    liquidity: { BTC: "100" },
  },
};

import type { AssetRegistry, Clock, GasPricer, StorageAdapter } from "../../../src/ports/public";
import { SolanaChain } from "./solana-chain";
import type { SolanaSigner } from "./solana-signer";

/** The Solana chain's entry of `PAYRAIL_CHAINS` (docs/chains.md), as written there. */
export interface SolanaChainConfigEntry {
  rpc_url: string;
  /** `confirmed` (default) or `finalized`: what balances and blockhashes are read at. */
  commitment?: "confirmed" | "finalized";
  /** Asset code → SPL mint address, e.g. `{"USDC": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"}`. */
  tokens?: Record<string, string>;
  finality_confirmations?: number;
  block_time_ms?: number;
  /** Price of one SOL in payout assets, e.g. `{"USDC": "150"}`. */
  fee_rates?: Record<string, string>;
  /** Priority fee floor and cap, micro-lamports per compute unit. */
  min_priority_fee?: number;
  max_priority_fee?: number;
}

const FIELDS = new Set(["rpc_url", "commitment", "tokens", "finality_confirmations", "block_time_ms", "fee_rates", "min_priority_fee", "max_priority_fee"]);

/**
 * Checks the entry of a Solana chain in `PAYRAIL_CHAINS` (already read as JSON): every mistake a
 * clear error naming the chain and field, nothing unknown ignored. The mints themselves are
 * checked when the adapter is made.
 */
export function parseSolanaChainConfig(chain: string, entry: unknown): SolanaChainConfigEntry {
  const where = `PAYRAIL_CHAINS.${chain}`;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw new TypeError(`${where} must be an object`);
  const e = entry as Record<string, unknown>;
  for (const field of Object.keys(e)) if (!FIELDS.has(field)) throw new TypeError(`${where}.${field} is not a setting`);
  if (typeof e.rpc_url !== "string" || !/^https?:\/\/\S+$/.test(e.rpc_url)) throw new TypeError(`${where}.rpc_url must be an http(s) URL`);
  const out: SolanaChainConfigEntry = { rpc_url: e.rpc_url };
  if (e.commitment !== undefined) {
    if (e.commitment !== "confirmed" && e.commitment !== "finalized") {
      throw new TypeError(`${where}.commitment must be "confirmed" or "finalized" (deposits are credited at finalized either way)`);
    }
    out.commitment = e.commitment;
  }
  for (const field of ["tokens", "fee_rates"] as const) {
    const v = e[field];
    if (v === undefined) continue;
    if (typeof v !== "object" || v === null || Array.isArray(v) || Object.values(v).some((x) => typeof x !== "string")) {
      throw new TypeError(`${where}.${field} must map asset codes to strings`);
    }
    out[field] = v as Record<string, string>;
  }
  for (const [field, min] of [
    ["finality_confirmations", 1],
    ["block_time_ms", 1],
    ["min_priority_fee", 0],
    ["max_priority_fee", 0],
  ] as const) {
    const v = e[field];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new TypeError(`${where}.${field} must be an integer of at least ${min}`);
    out[field] = v;
  }
  if (out.min_priority_fee !== undefined && out.max_priority_fee !== undefined && out.min_priority_fee > out.max_priority_fee) {
    throw new TypeError(`${where}.min_priority_fee must not exceed max_priority_fee`);
  }
  return out;
}

/** The `SolanaChain` of a configured entry; its constructor checks the mints and rates against the registry. */
export function solanaChainFromConfig(
  chain: string,
  entry: SolanaChainConfigEntry,
  deps: { storage: StorageAdapter; signer: SolanaSigner; clock?: Clock; assets?: AssetRegistry; pricer?: GasPricer },
): SolanaChain {
  return new SolanaChain({
    chain,
    rpcUrl: entry.rpc_url,
    storage: deps.storage,
    signer: deps.signer,
    tokens: entry.tokens ?? {},
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.assets ? { assets: deps.assets } : {}),
    ...(deps.pricer ? { pricer: deps.pricer } : {}),
    ...(entry.commitment ? { commitment: entry.commitment } : {}),
    ...(entry.finality_confirmations !== undefined ? { finalityConfirmations: entry.finality_confirmations } : {}),
    ...(entry.block_time_ms !== undefined ? { blockTimeMs: entry.block_time_ms } : {}),
    ...(entry.fee_rates !== undefined ? { feeRates: entry.fee_rates } : {}),
    ...(entry.min_priority_fee !== undefined || entry.max_priority_fee !== undefined
      ? {
          priorityFee: {
            ...(entry.min_priority_fee !== undefined ? { min: BigInt(entry.min_priority_fee) } : {}),
            ...(entry.max_priority_fee !== undefined ? { max: BigInt(entry.max_priority_fee) } : {}),
          },
        }
      : {}),
  });
}

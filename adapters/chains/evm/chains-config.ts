import { readFileSync } from "node:fs";
import { http } from "viem";
import type { AssetRegistry, Clock, StorageAdapter, GasPricer } from "../../../src/ports/public";
import type { EvmSigner } from "./evm-signer";
import { EvmChain } from "./evm-chain";

/** One chain of `PAYRAIL_CHAINS` (docs/decisions.md §9), as written there. */
export interface ChainConfigEntry {
  rpc_url: string;
  finality_confirmations?: number;
  tokens?: Record<string, string>;
  /** Typical block time in ms (polling). */
  block_time_ms?: number;
  /** Replace a transaction still unmined after this many seconds (default 180). */
  replace_after_seconds?: number;
  /** Price of one whole gas-asset unit in payout assets, e.g. `{"USDC": "3000"}`. */
  fee_rates?: Record<string, string>;
  /** Expected chain id of the node. */
  chain_id?: number;
  /** First block to read deposits from on a fresh database. */
  start_block?: number;
}

export type ChainsConfig = Record<string, ChainConfigEntry>;

const FIELDS = new Set(["rpc_url", "finality_confirmations", "tokens", "block_time_ms", "replace_after_seconds", "fee_rates", "chain_id", "start_block"]);

/**
 * Reads `PAYRAIL_CHAINS`: a JSON object, or `@path` to a JSON file. Every mistake is a clear
 * error naming the chain and field; nothing unknown is silently ignored.
 */
export function parseChainsConfig(text: string, assets: AssetRegistry): ChainsConfig {
  const source = text.trim().startsWith("@") ? readFileSync(text.trim().slice(1), "utf8") : text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (e) {
    throw new TypeError(`PAYRAIL_CHAINS is not valid JSON: ${(e as Error).message}`);
  }
  if (!isObject(parsed)) throw new TypeError("PAYRAIL_CHAINS must be a JSON object of chain name to settings");
  const out: ChainsConfig = {};
  for (const [chain, entry] of Object.entries(parsed)) {
    const where = `PAYRAIL_CHAINS.${chain}`;
    const definition = assets.chain(chain);
    if (!definition)
      throw new TypeError(
        `${where}: unknown chain (known: ${assets
          .chains()
          .map((c) => c.name)
          .join(", ")})`,
      );
    if (definition.family !== "evm") throw new TypeError(`${where}: only EVM chains can be wired live by this adapter (Solana: payrail/adapters/solana)`);
    if (!isObject(entry)) throw new TypeError(`${where} must be an object`);
    for (const field of Object.keys(entry)) if (!FIELDS.has(field)) throw new TypeError(`${where}.${field} is not a setting`);
    const rpc = entry.rpc_url;
    if (typeof rpc !== "string" || !/^https?:\/\/\S+$/.test(rpc)) throw new TypeError(`${where}.rpc_url must be an http(s) URL`);
    const int = (field: string, min: number) => {
      const v = entry[field];
      if (v === undefined) return undefined;
      if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new TypeError(`${where}.${field} must be an integer of at least ${min}`);
      return v;
    };
    const map = (field: string) => {
      const v = entry[field];
      if (v === undefined) return undefined;
      if (!isObject(v) || Object.values(v).some((x) => typeof x !== "string")) throw new TypeError(`${where}.${field} must map asset codes to strings`);
      return v as Record<string, string>;
    };
    const item: ChainConfigEntry = { rpc_url: rpc };
    const set = <K extends keyof ChainConfigEntry>(key: K, value: ChainConfigEntry[K] | undefined) => {
      if (value !== undefined) item[key] = value;
    };
    set("finality_confirmations", int("finality_confirmations", 1));
    set("block_time_ms", int("block_time_ms", 1));
    set("replace_after_seconds", int("replace_after_seconds", 1));
    set("chain_id", int("chain_id", 1));
    set("start_block", int("start_block", 0));
    set("tokens", map("tokens"));
    set("fee_rates", map("fee_rates"));
    out[chain] = item;
  }
  return out;
}

/** One `EvmChain` per configured chain, on `http(rpc_url)`; their constructors check tokens and rates. */
export function evmChainsFromConfig(
  config: ChainsConfig,
  deps: { storage: StorageAdapter; signer: EvmSigner; clock?: Clock; assets?: AssetRegistry; pricer?: GasPricer },
): EvmChain[] {
  return Object.entries(config).map(
    ([chain, entry]) =>
      new EvmChain({
        chain,
        transport: http(entry.rpc_url, { retryCount: 0, timeout: 10_000 }),
        storage: deps.storage,
        signer: deps.signer,
        tokens: entry.tokens ?? {},
        ...(deps.clock ? { clock: deps.clock } : {}),
        ...(deps.assets ? { assets: deps.assets } : {}),
        ...(deps.pricer ? { pricer: deps.pricer } : {}),
        ...(entry.finality_confirmations !== undefined ? { finalityConfirmations: entry.finality_confirmations } : {}),
        ...(entry.block_time_ms !== undefined ? { blockTimeMs: entry.block_time_ms } : {}),
        ...(entry.replace_after_seconds !== undefined ? { replaceAfterMs: entry.replace_after_seconds * 1000 } : {}),
        ...(entry.fee_rates !== undefined ? { feeRates: entry.fee_rates } : {}),
        ...(entry.chain_id !== undefined ? { chainId: entry.chain_id } : {}),
        ...(entry.start_block !== undefined ? { startBlock: entry.start_block } : {}),
      }),
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

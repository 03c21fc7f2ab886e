import { readFileSync } from "node:fs";
import { createPublicClient, getAddress, http } from "viem";
import type { Clock, StorageAdapter } from "../../../src/ports/public";
import type { ChainsConfig, EvmChain } from "../../chains/evm";
import { ROUTER_ABI } from "./uniswap-abi";
import { UniswapV2Venues } from "./uniswap-v2-venues";

/** One chain's Uniswap v2 deployment in `PAYRAIL_VENUES`, as written there. */
export interface UniswapV2ConfigEntry {
  router: string;
  factory: string;
  /** WETH9 (the ETH of the pools); default: what the router's `WETH()` answers. */
  weth?: string;
  /** The pairs to use, asset codes; default every pair of the chain's tokens the factory has. */
  pairs?: [string, string][];
  /** Confirmations a swap needs before its output is reported (default 1). */
  confirmations?: number;
  /** Seconds a swap transaction stays valid (the router's deadline, default 600). */
  deadline_seconds?: number;
}

/** `PAYRAIL_VENUES`: the real venues of live accounts, by kind and chain. */
export interface VenuesConfig {
  uniswap_v2?: Record<string, UniswapV2ConfigEntry>;
}

const KINDS = new Set(["uniswap_v2"]);
const FIELDS = new Set(["router", "factory", "weth", "pairs", "confirmations", "deadline_seconds"]);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Reads `PAYRAIL_VENUES` (a JSON object, or `@path` to a JSON file) against the live chains of
 * `PAYRAIL_CHAINS`: each venue's chain must be one of them (its node, tokens and hot wallet are
 * the venue's). Every mistake is a clear error naming the setting; nothing unknown is ignored.
 */
export function parseVenuesConfig(text: string, chains: ChainsConfig): VenuesConfig {
  const source = text.trim().startsWith("@") ? readFileSync(text.trim().slice(1), "utf8") : text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (e) {
    throw new TypeError(`PAYRAIL_VENUES is not valid JSON: ${(e as Error).message}`);
  }
  if (!isObject(parsed)) throw new TypeError('PAYRAIL_VENUES must be a JSON object such as {"uniswap_v2": {"ethereum": {…}}}');
  for (const kind of Object.keys(parsed)) if (!KINDS.has(kind)) throw new TypeError(`PAYRAIL_VENUES.${kind} is not a venue kind (known: uniswap_v2)`);
  const out: VenuesConfig = {};
  const uni = parsed.uniswap_v2;
  if (uni === undefined) return out;
  if (!isObject(uni)) throw new TypeError("PAYRAIL_VENUES.uniswap_v2 must map chain names to deployments");
  out.uniswap_v2 = {};
  for (const [chain, entry] of Object.entries(uni)) {
    const where = `PAYRAIL_VENUES.uniswap_v2.${chain}`;
    const live = chains[chain];
    if (!live) throw new TypeError(`${where}: ${chain} is not a live chain of PAYRAIL_CHAINS (the venue swaps with its hot wallet)`);
    if (!isObject(entry)) throw new TypeError(`${where} must be an object`);
    for (const field of Object.keys(entry)) if (!FIELDS.has(field)) throw new TypeError(`${where}.${field} is not a setting`);
    const address = (field: string, required: boolean) => {
      const v = entry[field];
      if (v === undefined && !required) return undefined;
      if (typeof v !== "string" || !ADDRESS.test(v)) throw new TypeError(`${where}.${field} must be an EVM address`);
      return v;
    };
    const int = (field: string, min: number) => {
      const v = entry[field];
      if (v === undefined) return undefined;
      if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new TypeError(`${where}.${field} must be an integer of at least ${min}`);
      return v;
    };
    const tokens = new Set([...Object.keys(live.tokens ?? {}), "ETH"]);
    const pairs = entry.pairs;
    if (pairs !== undefined) {
      const ok =
        Array.isArray(pairs) &&
        pairs.every((p) => Array.isArray(p) && p.length === 2 && p.every((a) => typeof a === "string" && tokens.has(a)) && p[0] !== p[1]);
      if (!ok) throw new TypeError(`${where}.pairs must be pairs of two different assets among ${[...tokens].join(", ")}`);
    }
    const item: UniswapV2ConfigEntry = { router: address("router", true)!, factory: address("factory", true)! };
    const weth = address("weth", false);
    if (weth) item.weth = weth;
    if (pairs !== undefined) item.pairs = pairs as [string, string][];
    const confirmations = int("confirmations", 1);
    if (confirmations !== undefined) item.confirmations = confirmations;
    const deadline = int("deadline_seconds", 30);
    if (deadline !== undefined) item.deadline_seconds = deadline;
    out.uniswap_v2[chain] = item;
  }
  return out;
}

/**
 * One `UniswapV2Venues` per configured chain, on that chain's node (`rpc_url`), tokens and
 * `EvmChain` (its hot wallet swaps). ETH is WETH: the configured `weth`, or the router's.
 */
export async function venuesFromConfig(
  config: VenuesConfig,
  deps: { chains: ChainsConfig; adapters: readonly EvmChain[]; storage: StorageAdapter; clock?: Clock },
): Promise<UniswapV2Venues[]> {
  const venues: UniswapV2Venues[] = [];
  for (const [chain, entry] of Object.entries(config.uniswap_v2 ?? {})) {
    const adapter = deps.adapters.find((a) => a.chains.includes(chain));
    if (!adapter) throw new TypeError(`PAYRAIL_VENUES.uniswap_v2.${chain}: no live chain adapter serves ${chain}`);
    const transport = http(deps.chains[chain]!.rpc_url, { retryCount: 0, timeout: 10_000 });
    const weth =
      entry.weth ??
      (await createPublicClient({ transport })
        .readContract({ address: getAddress(entry.router.toLowerCase()), abi: ROUTER_ABI, functionName: "WETH" })
        .catch((e: unknown) => {
          throw new TypeError(`PAYRAIL_VENUES.uniswap_v2.${chain}: the router's WETH() could not be read (${(e as Error).message.split("\n")[0]})`);
        }));
    venues.push(
      new UniswapV2Venues({
        chain: adapter,
        transport,
        storage: deps.storage,
        router: entry.router,
        factory: entry.factory,
        tokens: { ...deps.chains[chain]!.tokens, ETH: weth },
        ...(entry.pairs ? { pairs: entry.pairs } : {}),
        ...(entry.confirmations !== undefined ? { confirmations: entry.confirmations } : {}),
        ...(entry.deadline_seconds !== undefined ? { deadlineSeconds: entry.deadline_seconds } : {}),
        ...(deps.clock ? { clock: deps.clock } : {}),
      }),
    );
  }
  return venues;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";

/** How addresses on a chain are written; address validation is chosen by family. */
export type ChainFamily = "evm" | "solana" | "bitcoin";

export interface ChainDefinition {
  /** Lowercase chain name used in the API, e.g. `ethereum`. */
  readonly name: string;
  readonly family: ChainFamily;
}

export interface AssetDefinition {
  /** Uppercase asset code used in the API, e.g. `USDC`. */
  readonly code: string;
  /** Digits after the decimal point; amounts are integers of 10^-decimals. */
  readonly decimals: number;
  /** Stable pairs carry no platform fee. */
  readonly stablecoin: boolean;
  /** Chains the asset exists on; funds of the asset are kept per chain. */
  readonly chains: readonly string[];
}

/** docs/decisions.md §1. */
export const DEFAULT_CHAINS: readonly ChainDefinition[] = [
  { name: "ethereum", family: "evm" },
  { name: "polygon", family: "evm" },
  { name: "arbitrum", family: "evm" },
  { name: "base", family: "evm" },
  { name: "solana", family: "solana" },
  { name: "bitcoin", family: "bitcoin" },
];

/** docs/decisions.md §1; which chains each asset lives on follows where it is natively issued. */
export const DEFAULT_ASSETS: readonly AssetDefinition[] = [
  { code: "USDC", decimals: 6, stablecoin: true, chains: ["ethereum", "polygon", "arbitrum", "base", "solana"] },
  { code: "USDT", decimals: 6, stablecoin: true, chains: ["ethereum", "polygon", "arbitrum", "solana"] },
  { code: "EURC", decimals: 6, stablecoin: true, chains: ["ethereum", "base", "solana"] },
  { code: "ETH", decimals: 18, stablecoin: false, chains: ["ethereum", "arbitrum", "base"] },
  { code: "BTC", decimals: 8, stablecoin: false, chains: ["bitcoin"] },
  { code: "SOL", decimals: 9, stablecoin: false, chains: ["solana"] },
];

const ASSET_CODE = /^[A-Z][A-Z0-9]{1,11}$/;
const CHAIN_NAME = /^[a-z][a-z0-9_]{1,31}$/;

/**
 * The assets and chains an engine knows. Hosts extend it with `createEngine({ assets, chains })`;
 * every definition is checked once here so the rest of the code can trust it.
 */
export class AssetRegistry {
  private readonly assets = new Map<string, AssetDefinition>();
  private readonly chainMap = new Map<string, ChainDefinition>();

  constructor(assets: readonly AssetDefinition[] = DEFAULT_ASSETS, chains: readonly ChainDefinition[] = DEFAULT_CHAINS) {
    for (const chain of chains) {
      if (!CHAIN_NAME.test(chain.name)) throw new TypeError(`invalid chain name ${chain.name}`);
      this.chainMap.set(chain.name, Object.freeze({ ...chain }));
    }
    for (const asset of assets) {
      if (!ASSET_CODE.test(asset.code)) throw new TypeError(`invalid asset code ${asset.code}`);
      if (!Number.isInteger(asset.decimals) || asset.decimals < 0 || asset.decimals > 30) {
        throw new TypeError(`asset ${asset.code}: decimals must be an integer from 0 to 30`);
      }
      for (const chain of asset.chains) {
        if (!this.chainMap.has(chain)) throw new TypeError(`asset ${asset.code}: unknown chain ${chain}`);
      }
      this.assets.set(asset.code, Object.freeze({ ...asset, chains: Object.freeze([...asset.chains]) }));
    }
  }

  /** Registry of the defaults plus the host's additions (a host definition replaces a default). */
  static withDefaults(assets: readonly AssetDefinition[] = [], chains: readonly ChainDefinition[] = []): AssetRegistry {
    const chainList = new Map(DEFAULT_CHAINS.map((c) => [c.name, c]));
    for (const c of chains) chainList.set(c.name, c);
    const assetList = new Map(DEFAULT_ASSETS.map((a) => [a.code, a]));
    for (const a of assets) assetList.set(a.code, a);
    return new AssetRegistry([...assetList.values()], [...chainList.values()]);
  }

  get(code: string): AssetDefinition | undefined {
    return this.assets.get(code);
  }

  chain(name: string): ChainDefinition | undefined {
    return this.chainMap.get(name);
  }

  list(): AssetDefinition[] {
    return [...this.assets.values()].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  }

  chains(): ChainDefinition[] {
    return [...this.chainMap.values()];
  }

  /** The asset, or `asset_unsupported` naming `param`. */
  asset(code: unknown, param: string): Result<AssetDefinition, ApiError> {
    const asset = typeof code === "string" ? this.assets.get(code) : undefined;
    return asset ? ok(asset) : fail("asset_unsupported", `Unsupported asset: ${String(code)}`, { param });
  }

  /** A chain the asset exists on, or `chain_unsupported` naming `param`. */
  chainFor(asset: AssetDefinition, name: unknown, param: string): Result<ChainDefinition, ApiError> {
    const chain = typeof name === "string" ? this.chainMap.get(name) : undefined;
    if (!chain) return fail("chain_unsupported", `Unsupported chain: ${String(name)}`, { param });
    if (!asset.chains.includes(chain.name)) {
      return fail("chain_unsupported", `${asset.code} is not supported on ${chain.name}`, { param });
    }
    return ok(chain);
  }

  /** A known chain (any asset), or `chain_unsupported`. */
  knownChain(name: unknown, param: string): Result<ChainDefinition, ApiError> {
    const chain = typeof name === "string" ? this.chainMap.get(name) : undefined;
    return chain ? ok(chain) : fail("chain_unsupported", `Unsupported chain: ${String(name)}`, { param });
  }
}

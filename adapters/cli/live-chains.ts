import { readFileSync } from "node:fs";
import type { PayrailEngine as Engine } from "../../src/modules";
import { AssetRegistry } from "../../src/money/assets";
import type { Clock } from "../../src/ports/clock";
import type { EvmSigner } from "../chains/evm";
import { checkMnemonic } from "../chains/mnemonic";
import type { SolanaSigner } from "../chains/solana";
import type { ChainAdapter } from "../../src/ports/chain";
import type { StorageAdapter } from "../../src/ports/storage";
import type { VenueAdapter } from "../../src/ports/venue";
import { venueGasPricer, type GasPricer } from "../../src/quoting/gas-pricer";
import { redactApiKey } from "../../src/resources/accounts/auth";
import { LiveConfigurationError, checkLiveAdapters } from "./live-checks";
import type { ConfigurationCheck } from "../../src/ports/chain";
import { MemoryStorage } from "../memory/memory-storage";

/** What the host needs to go live (docs/decisions.md §9): `PAYRAIL_CHAINS` and the keys. */
export interface LiveChainsOptions {
  /** `PAYRAIL_CHAINS`: a JSON object, or `@path` to a JSON file. */
  chains: string;
  /** `PAYRAIL_SIGNER_MNEMONIC`; or give `signer` / `solanaSigner` (a KMS, an HSM, a custody API). */
  mnemonic?: string;
  signer?: EvmSigner;
  solanaSigner?: SolanaSigner;
  /** `PAYRAIL_VENUES`: the real venues of live accounts (Uniswap v2 pools on the EVM chains); JSON, or `@path`. */
  venues?: string;
}

/**
 * One adapter per configured chain: `EvmChain` for the EVM chains, `SolanaChain` for Solana,
 * each family signing with keys of its own derived from the one mnemonic (BIP-44 `60'` and
 * `501'`) unless a signer is given; and the live venues of `PAYRAIL_VENUES` on the EVM chains.
 * Gas is priced through the live venues unless a chain configures `fee_rates` (never through a
 * simulation: a live payout's fee is a live price). viem and @solana/kit are loaded only here,
 * and only for a family that is configured. Errors name the setting, never a key: every mistake
 * is a `LiveConfigurationError` (the host prints its line, no stack trace). What the settings say
 * is checked against the chains themselves by `checkLiveAdapters`.
 */
export async function liveChainAdapters(options: LiveChainsOptions, deps: { storage: StorageAdapter; clock: Clock }): Promise<LiveChains> {
  try {
    return await makeLiveChains(options, deps);
  } catch (e) {
    if (e instanceof TypeError) throw new LiveConfigurationError(e.message);
    throw e;
  }
}

/**
 * The live configuration checked against the chains themselves, as `payrail doctor` prints it
 * (the host runs the same checks on its own storage): the adapters are made on a memory storage
 * of their own and nothing is signed or sent. Every check in order (`checkLiveAdapters`); a
 * setting that cannot even be read is a `LiveConfigurationError`.
 */
export async function checkLiveConfiguration(options: LiveChainsOptions, clock: Clock): Promise<ConfigurationCheck[]> {
  const live = await liveChainAdapters(options, { storage: new MemoryStorage(), clock });
  return checkLiveAdapters([...live.adapters, ...live.venues]);
}

export interface LiveChains {
  adapters: ChainAdapter[];
  venues: VenueAdapter[];
  hotWallets: Record<string, string>;
  chains: string[];
}

async function makeLiveChains(options: LiveChainsOptions, deps: { storage: StorageAdapter; clock: Clock }): Promise<LiveChains> {
  const assets = AssetRegistry.withDefaults();
  const text = options.chains.trim().startsWith("@") ? readFileSync(options.chains.trim().slice(1), "utf8") : options.chains;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new TypeError(`PAYRAIL_CHAINS is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new TypeError("PAYRAIL_CHAINS must be a JSON object of chain name to settings");
  const evm: Record<string, unknown> = {};
  const solana: Record<string, unknown> = {};
  for (const [chain, entry] of Object.entries(parsed)) {
    const family = assets.chain(chain)?.family;
    if (family === "solana") solana[chain] = entry;
    else if (family === "bitcoin") throw new TypeError(`PAYRAIL_CHAINS.${chain}: no live adapter serves the bitcoin family yet (EVM chains and Solana do)`);
    else evm[chain] = entry; // EVM, or unknown: the EVM parser names the known chains
  }
  if (Object.keys(evm).length + Object.keys(solana).length === 0) throw new TypeError("PAYRAIL_CHAINS names no chain");
  const needsKeys = (given: unknown) => {
    if (!given && !options.mnemonic) throw new TypeError("PAYRAIL_CHAINS needs PAYRAIL_SIGNER_MNEMONIC (the keys of the hot wallet and deposit addresses)");
  };
  const venues: VenueAdapter[] = [];
  let viaVenues: GasPricer = async () => null;
  const pricer: GasPricer = (from, to) => viaVenues(from, to); // the live venues, once made below
  const adapters: ChainAdapter[] = [];
  const hotWallets: Record<string, string> = {};
  if (Object.keys(evm).length > 0) {
    const { MnemonicSigner, evmChainsFromConfig, parseChainsConfig } = await import("../chains/evm");
    const config = parseChainsConfig(JSON.stringify(evm), assets);
    needsKeys(options.signer);
    const signer = options.signer ?? new MnemonicSigner(checkMnemonic(options.mnemonic!, "PAYRAIL_SIGNER_MNEMONIC"));
    const evmAdapters = evmChainsFromConfig(config, { storage: deps.storage, signer, clock: deps.clock, assets, pricer });
    adapters.push(...evmAdapters);
    const hot = await signer.address(0);
    for (const chain of Object.keys(config)) hotWallets[chain] = hot;
    if (options.venues) {
      const { parseVenuesConfig, venuesFromConfig } = await import("../venues/uniswap-v2");
      const venuesConfig = parseVenuesConfig(options.venues, config);
      venues.push(...(await venuesFromConfig(venuesConfig, { chains: config, adapters: evmAdapters, storage: deps.storage, clock: deps.clock })));
    }
  } else if (options.venues) {
    throw new TypeError("PAYRAIL_VENUES needs EVM chains in PAYRAIL_CHAINS (its Uniswap v2 pools are on them)");
  }
  viaVenues = venueGasPricer(venues);
  if (Object.keys(solana).length > 0) {
    const { MnemonicSolanaSigner, parseSolanaChainConfig, solanaChainFromConfig } = await import("../chains/solana");
    const entries = Object.entries(solana).map(([chain, entry]) => [chain, parseSolanaChainConfig(chain, entry)] as const);
    needsKeys(options.solanaSigner);
    const signer = options.solanaSigner ?? new MnemonicSolanaSigner(checkMnemonic(options.mnemonic!, "PAYRAIL_SIGNER_MNEMONIC"));
    for (const [chain, entry] of entries) {
      adapters.push(solanaChainFromConfig(chain, entry, { storage: deps.storage, signer, clock: deps.clock, assets, pricer }));
      hotWallets[chain] = await signer.address(0);
    }
  }
  return { adapters, venues, hotWallets, chains: Object.keys(hotWallets) };
}

/**
 * The live demo account of `PAYRAIL_LIVE_API_KEY`: made on first start, found again after a
 * restart (its id is kept in storage; the key itself only as its hash, like every key).
 */
export async function ensureLiveAccount(engine: Engine, key: string, log: (line: string) => void): Promise<string> {
  if (!key.startsWith("sk_live_")) throw new TypeError("PAYRAIL_LIVE_API_KEY must look like sk_live_ followed by 16 or more characters");
  const meta = () => engine.storage.transaction((tx) => tx.meta.get("live_demo_account_id"));
  let accountId = await meta();
  if (!accountId) {
    const account = await engine.accounts.create({ name: "Live demo", livemode: true });
    accountId = await engine.storage.transaction((tx) => tx.meta.setIfAbsent("live_demo_account_id", account.id));
    if (accountId === account.id) log(`created live demo account ${accountId}`);
  }
  const created = await engine.accounts.createApiKey(accountId, { key });
  if (created.isErr()) throw new TypeError(`PAYRAIL_LIVE_API_KEY: ${created.error.message}`);
  log(`live API key ${redactApiKey(key)} serves account ${accountId}`);
  return accountId;
}

import type { PayrailEngine as Engine } from "../../src/modules";
import { AssetRegistry } from "../../src/money/assets";
import type { Clock } from "../../src/ports/clock";
import type { EvmSigner } from "../chains/evm";
import type { StorageAdapter } from "../../src/ports/storage";
import type { VenueAdapter } from "../../src/ports/venue";
import { venueGasPricer, type GasPricer } from "../../src/quoting/gas-pricer";
import { redactApiKey } from "../../src/resources/accounts/auth";

/** What the host needs to go live (DECISIONS.md §9): `PAYRAIL_CHAINS` and the keys. */
export interface LiveChainsOptions {
  /** `PAYRAIL_CHAINS`: a JSON object, or `@path` to a JSON file. */
  chains: string;
  /** `PAYRAIL_SIGNER_MNEMONIC`; or give `signer` (a KMS, an HSM, a custody API). */
  mnemonic?: string;
  signer?: EvmSigner;
  /** `PAYRAIL_VENUES`: the real venues of live accounts (Uniswap v2 pools on these chains); JSON, or `@path`. */
  venues?: string;
}

/**
 * One EVM adapter per configured chain, signing with the mnemonic (or the given signer), and the
 * live venues of `PAYRAIL_VENUES` on them. Gas is priced through the live venues unless a chain
 * configures `fee_rates` (never through a simulation: a live payout's fee is a live price).
 * viem is loaded only here, when live chains are configured. Errors name the setting, never a key.
 */
export async function liveChainAdapters(
  options: LiveChainsOptions,
  deps: { storage: StorageAdapter; clock: Clock },
): Promise<{ adapters: import("../chains/evm").EvmChain[]; venues: VenueAdapter[]; hotWallet: string; chains: string[] }> {
  const { MnemonicSigner, evmChainsFromConfig, parseChainsConfig } = await import("../chains/evm");
  const assets = AssetRegistry.withDefaults();
  const config = parseChainsConfig(options.chains, assets);
  if (Object.keys(config).length === 0) throw new TypeError("PAYRAIL_CHAINS names no chain");
  let signer = options.signer;
  if (!signer) {
    if (!options.mnemonic) throw new TypeError("PAYRAIL_CHAINS needs PAYRAIL_SIGNER_MNEMONIC (the keys of the hot wallet and deposit addresses)");
    signer = new MnemonicSigner(options.mnemonic);
  }
  const venues: VenueAdapter[] = [];
  let viaVenues: GasPricer = async () => null;
  const pricer: GasPricer = (from, to) => viaVenues(from, to); // the live venues, once made below
  const adapters = evmChainsFromConfig(config, { storage: deps.storage, signer, clock: deps.clock, assets, pricer });
  if (options.venues) {
    const { parseVenuesConfig, venuesFromConfig } = await import("../venues/uniswap-v2");
    const venuesConfig = parseVenuesConfig(options.venues, config);
    venues.push(...(await venuesFromConfig(venuesConfig, { chains: config, adapters, storage: deps.storage, clock: deps.clock })));
    viaVenues = venueGasPricer(venues);
  }
  return { adapters, venues, hotWallet: await signer.address(0), chains: Object.keys(config) };
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

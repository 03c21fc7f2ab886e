/**
 * `payrail/dev`: the ports `npm start` and the tests run on, in one call. Chains, venues and
 * screening are simulations (they serve test-mode accounts only), time is the system clock
 * unless you pass one, webhooks go out through the real HTTP delivery adapter, and report files
 * stay in memory (`npm start` keeps them on disk instead).
 *
 * ```ts
 * import { createEngine } from "payrail";
 * import { devPorts } from "payrail/dev";
 * import { createMemoryStorage } from "payrail/adapters/memory";
 *
 * const engine = await createEngine({ storage: createMemoryStorage(), ...devPorts() });
 * ```
 */
import type { EngineOptions } from "../../src/index";
import { AssetRegistry, type AssetDefinition, type ChainDefinition, type Clock, type StorageAdapter } from "../../src/ports/public";
import { SimulatedChains, type SimulatedChainsOptions } from "../chains/simulated";
import { ManualClock, SystemClock } from "../clock";
import { createHttpDelivery } from "../delivery";
import { SimulatedScreening } from "../screening/simulated-screening";
import { SimulatedVenues } from "../venues/simulated";
import { createMemoryBlobStore } from "../blobs/memory-blob-store";

export interface DevPortsOptions {
  /** Default: the system clock. Tests pass a `ManualClock`. */
  clock?: Clock;
  /** Let webhooks reach plain-http and loopback receivers (local development). Default false. */
  allowPrivateWebhooks?: boolean;
  /** The assets and chains the engine adds to the defaults, so the simulated chains know them. */
  assets?: AssetDefinition[];
  chains?: ChainDefinition[];
  /** Settings of the simulated chains (seed, per-chain fees, caps, timing). */
  simulatedChains?: Omit<SimulatedChainsOptions, "clock" | "assets" | "storage">;
  /**
   * Keep the simulated chains' world in this storage (the engine's own, as `npm start` does),
   * so a restart loses no deposit or transfer. Default: in this process's memory.
   */
  storage?: StorageAdapter;
}

/** The ports of a development engine (see the module's comment). */
export type DevPorts = Pick<EngineOptions, "clock" | "chainAdapters" | "screening" | "delivery" | "venues" | "blobs">;

export function devPorts(options: DevPortsOptions = {}): DevPorts {
  const clock = options.clock ?? new SystemClock();
  const assets = AssetRegistry.withDefaults(options.assets, options.chains);
  return {
    clock,
    chainAdapters: [new SimulatedChains({ ...options.simulatedChains, clock, assets, ...(options.storage ? { storage: options.storage } : {}) })],
    screening: new SimulatedScreening({ clock }),
    delivery: createHttpDelivery({ allowPrivateNetworks: options.allowPrivateWebhooks ?? false }),
    venues: [new SimulatedVenues({ clock })],
    blobs: createMemoryBlobStore(),
  };
}

export { ManualClock, SystemClock, SimulatedChains, SimulatedScreening, SimulatedVenues, createHttpDelivery };

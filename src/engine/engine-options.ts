import type { AssetDefinition, ChainDefinition } from "../money/assets";
import type { RandomSource } from "../ids";
import type { BlobStore } from "../ports/blobs";
import type { ChainAdapter } from "../ports/chain";
import type { Clock } from "../ports/clock";
import type { DeliveryAdapter } from "../ports/delivery";
import type { EngineObserver } from "../ports/observer";
import type { ScreeningAdapter } from "../ports/screening";
import type { Tracer } from "../ports/tracer";
import type { StorageAdapter } from "../ports/storage";
import type { VenueAdapter } from "../ports/venue";
import type { WorkerOptions } from "../workers/runner";
import type { EngineConfig } from "./context";

/**
 * The ports an engine runs on. Every one is explicit: `payrail/dev` has the simulated ones
 * (chains, venues, screening) with the system clock and HTTP delivery, for `npm start` and
 * tests (`createEngine({ storage, ...devPorts() })`).
 */
export interface EngineOptions {
  /** Where everything is kept: `createMemoryStorage()` or `createPostgresStorage(…)`. */
  storage: StorageAdapter;
  /** Source of time: the system clock in production, a manual clock in tests. */
  clock: Clock;
  /**
   * Chain adapters, each serving the chains it names. A simulator (`testModeOnly`) serves
   * test-mode accounts only; a chain no real adapter serves has no route for live accounts.
   */
  chainAdapters: ChainAdapter[];
  /** Recipient screening. */
  screening: ScreeningAdapter;
  /** Sends webhook attempts (HTTPS to public addresses, or what the adapter allows). The engine closes it. */
  delivery: DeliveryAdapter;
  /**
   * Where conversions execute: quotes, swaps and limit orders price across every venue these
   * offer to the account's mode. Simulations (`testModeOnly`) serve test-mode accounts; real
   * venues (the Uniswap v2 adapter) live accounts only.
   */
  venues: VenueAdapter[];
  /**
   * Where report files are kept: `createFileBlobStore({ directory })` (`payrail/adapters/blobs`),
   * `createS3BlobStore(…)` (`payrail/adapters/s3`), or in memory for tests. The engine closes it.
   */
  blobs: BlobStore;
  /**
   * Origin of the HTTP binding as clients reach it (`https://api.example.com`), for report links
   * the engine signs (blob stores without URLs of their own). Default: the origin of each request.
   */
  publicUrl?: string;
  /** Assets added to (or replacing) the defaults of docs/decisions.md §1. */
  assets?: AssetDefinition[];
  /** Chains added to (or replacing) the defaults. */
  chains?: ChainDefinition[];
  /** Randomness for ids, secrets and jitter; default the OS CSPRNG. Seed it for replayable runs. */
  random?: RandomSource;
  /**
   * Key that signs list cursors. Default: one generated at first start and kept in storage, so
   * every engine process on one database agrees.
   */
  secret?: string;
  config?: Partial<EngineConfig>;
  worker?: WorkerOptions;
  /**
   * This process is the only one using `storage` (an embedded database it opened, as `npm start`
   * does): at creation, due work leased by a process that died and payout legs it had claimed
   * for sending are taken back at once, not when their leases and claims would have run out.
   * Never set it when engines in other processes share the storage.
   */
  exclusiveStorage?: boolean;
  /**
   * Hears what the engine does, for metrics and traces (see `EngineObserver`): requests, due
   * work, webhook attempts, ledger postings, events, and the latency and errors of every chain,
   * venue and screening call. Default: nothing is recorded.
   */
  observer?: EngineObserver;
  /**
   * Traces what the engine does (see `Tracer`): each operation of its host API, each storage
   * transaction inside one, each due work item (joining the trace it was scheduled from), and
   * each chain, venue, screening and webhook call. `createOpenTelemetryTracer()` of
   * `payrail/adapters/otel`; default: nothing is traced (docs/tracing.md).
   */
  tracer?: Tracer;
}

export interface CloseOptions {
  /**
   * Wait at most this long for the work in flight; whatever still runs then gives its lease
   * back (another process takes it at once) and is abandoned. Default: wait for all of it.
   */
  graceMs?: number;
}

import { ChainDirectory } from "../chains/chain-directory";
import { IdGenerator, cryptoRandom, randomToken, type RandomSource } from "../ids";
import { CursorCodec } from "../lists/cursor-codec";
import { AssetRegistry, type AssetDefinition, type ChainDefinition } from "../money/assets";
import type { ChainAdapter } from "../ports/chain";
import type { Clock } from "../ports/clock";
import type { DeliveryAdapter } from "../ports/delivery";
import { adapterTiming, guardMethods, guardObserver, guardStorage } from "../ports/guard";
import { NO_OBSERVER, type EngineObserver } from "../ports/observer";
import type { ScreeningAdapter } from "../ports/screening";
import type { DueWorkKindStats, StorageAdapter, StorageTx } from "../ports/storage";
import type { VenueAdapter } from "../ports/venue";
import { VenueSet } from "../quoting/venue-set";
import { accountsModule } from "../resources/accounts";
import { apiKeysModule } from "../resources/api-keys";
import { balancesModule } from "../resources/balances";
import { eventsModule } from "../resources/events";
import { limitOrdersModule } from "../resources/limit-orders";
import { paymentIntentsModule } from "../resources/payment-intents";
import { payoutsModule } from "../resources/payouts";
import { quotesModule } from "../resources/quotes";
import { recipientsModule } from "../resources/recipients";
import { swapsModule } from "../resources/swaps";
import { testHelpersModule } from "../resources/test-helpers";
import { webhooksModule } from "../resources/webhook-endpoints";
import { ledgerEntriesModule } from "../resources/ledger-entries";
import { reportsModule } from "../resources/reports";
import { FileLinks } from "../files/file-links";
import type { BlobStore } from "../ports/blobs";
import { newDueWork } from "../workers/due-work";
import { MAINTENANCE, maintenanceHandler } from "../workers/maintenance";
import { WorkerRunner, type WorkerOptions } from "../workers/runner";
import { DEFAULT_CONFIG, type EngineConfig, type EngineDeps } from "./context";
import { IdempotencyService } from "./idempotency";
import { RateLimitService } from "./rate-limits";
import { checkReadiness, type Readiness } from "./readiness";
import type { Kernel, ResourceModule, ServicesOf } from "./resource-module";
import type { DownloadRouteDefinition, RouteDefinition } from "./route";

/**
 * The resources of the engine, in the order they are set up (a module may use the services of
 * those before it). Each brings its services, its due work and its routes through one seam
 * (`ResourceModule`); nothing else wires a resource in.
 */
const MODULES = [
  accountsModule,
  apiKeysModule,
  balancesModule,
  eventsModule,
  recipientsModule,
  payoutsModule,
  paymentIntentsModule,
  webhooksModule,
  quotesModule,
  swapsModule,
  limitOrdersModule,
  ledgerEntriesModule,
  reportsModule,
  testHelpersModule,
] as const;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The members every resource module adds to the engine (`engine.payouts`, `engine.swaps`, …). */
export type EngineServices = UnionToIntersection<ServicesOf<(typeof MODULES)[number]>>;

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
  /** Where conversions execute: quotes, swaps and limit orders price across every venue these offer. */
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
  /** Assets added to (or replacing) the defaults of DECISIONS.md §1. */
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
}

export interface CloseOptions {
  /**
   * Wait at most this long for the work in flight; whatever still runs then gives its lease
   * back (another process takes it at once) and is abandoned. Default: wait for all of it.
   */
  graceMs?: number;
}

const internals = new WeakMap<Engine, EngineDeps>();

/**
 * What the engine is built from, for code inside this package that needs it (tests, benchmarks,
 * the conformance suites); hosts use the engine's members.
 */
export function engineDeps(engine: Engine): EngineDeps {
  return internals.get(engine)!;
}

// The services of the modules are members of the engine, typed from the modules themselves.
export interface Engine extends EngineServices {}

/**
 * The composition root: ports in, services and workers out. Engines hold no state between
 * requests beyond caches, so any number of them can share one database.
 */
export class Engine {
  /** The due-work runner: `start()` it to run background work, `runDue()` in tests. */
  readonly worker: WorkerRunner;
  /** Idempotency keys (DECISIONS.md §3), for a binding that honours `Idempotency-Key`. */
  readonly idempotency: IdempotencyService;
  /** Rate limits counted in storage, for a binding that limits requests. */
  readonly rateLimits: RateLimitService;
  /** Every route of every resource module, framework-neutral (`payrail/http` mounts them). */
  readonly routes: readonly RouteDefinition[];
  /** Routes that answer files to holders of signed links, without an API key. */
  readonly downloads: readonly DownloadRouteDefinition[];

  private constructor(
    deps: EngineDeps,
    workerOptions: WorkerOptions,
    private readonly storageInitialized: () => boolean,
  ) {
    internals.set(this, deps);
    const worker = new WorkerRunner(deps.storage, deps.clock, deps.ids, deps.random, workerOptions, { assets: deps.assets }, deps.observer);
    this.worker = worker;
    deps.wakeWorkers = () => {
      worker.wake();
      // a commit that scheduled work may have written events: lists waiting for them look again
      this.events.notify();
    };
    this.idempotency = new IdempotencyService(deps);
    this.rateLimits = new RateLimitService(deps);
    worker.handle(MAINTENANCE, maintenanceHandler(deps));
    const setUp = new Map<ResourceModule<object>, object>();
    const kernel: Kernel = {
      deps,
      worker,
      use<S extends object>(module: ResourceModule<S>): S {
        const services = setUp.get(module as ResourceModule<object>);
        if (!services) throw new Error(`module ${module.name} is used before it is set up`);
        return services as S;
      },
    };
    for (const module of MODULES as readonly ResourceModule<object>[]) {
      const parts = module.setup(kernel);
      setUp.set(module, parts.services);
      Object.assign(this, parts.services);
      for (const binding of parts.work ?? []) {
        if (binding.lane) worker.addLane({ kinds: [binding.def.kind], ...binding.lane });
        worker.handle(binding.def, binding.handler);
      }
    }
    this.routes = MODULES.flatMap((module) => module.routes);
    this.downloads = (MODULES as readonly ResourceModule<object>[]).flatMap((module) => module.downloads ?? []);
  }

  get clock(): Clock {
    return engineDeps(this).clock;
  }

  get assets(): AssetRegistry {
    return engineDeps(this).assets;
  }

  get storage(): StorageAdapter {
    return engineDeps(this).storage;
  }

  /** Where a binding reports what it serves (the host's observer, guarded; see `EngineObserver`). */
  get observer(): EngineObserver {
    return engineDeps(this).observer;
  }

  /** A new request id (`req_…`), for a binding to answer with and record on events. */
  newRequestId(): string {
    return engineDeps(this).ids.next("req");
  }

  /** Creates an engine: initialises storage (migrations) and schedules housekeeping. */
  static async create(options: EngineOptions): Promise<Engine> {
    const storage = guardStorage(options.storage);
    await storage.init();
    const { clock } = options;
    const random = options.random ?? cryptoRandom;
    const ids = new IdGenerator(clock, random);
    const secret =
      options.secret ??
      (await storage.transaction((tx) => tx.meta.setIfAbsent("cursor_secret", randomToken(random, 32))));
    const house = await storage.transaction(async (tx) => ({
      test: await houseAccount(tx, ids, clock.now(), false),
      live: await houseAccount(tx, ids, clock.now(), true),
    }));
    const observer = guardObserver(options.observer ?? NO_OBSERVER, (e) => options.worker?.onError?.(e));
    const startedAt = clock.now();
    if (options.exclusiveStorage) await storage.transaction((tx) => tx.work.releaseAllLeases(startedAt));
    const deps: EngineDeps = {
      storage,
      house,
      clock,
      ids,
      random,
      assets: AssetRegistry.withDefaults(options.assets, options.chains),
      cursors: new CursorCodec(Buffer.from(secret)),
      config: { ...DEFAULT_CONFIG, ...options.config },
      chains: new ChainDirectory(options.chainAdapters, (name) => adapterTiming(observer, clock, "chain", name)),
      screening: guardMethods(options.screening.name, options.screening, "", adapterTiming(observer, clock, "screening", options.screening.name)),
      delivery: guardMethods(options.delivery.name, options.delivery),
      wakeWorkers: () => undefined,
      venues: new VenueSet(options.venues, (name) => adapterTiming(observer, clock, "venue", name)),
      blobs: guardMethods(options.blobs.name, options.blobs),
      fileLinks: new FileLinks(secret),
      publicUrl: options.publicUrl ?? null,
      observer,
      claimsValidFrom: options.exclusiveStorage ? startedAt : Number.NEGATIVE_INFINITY,
    };
    const engine = new Engine(deps, options.worker ?? {}, () => storage.initialized);
    const now = clock.now();
    await storage.transaction((tx) =>
      tx.work.enqueue([newDueWork(ids, now, MAINTENANCE, {}, null, { dedupeKey: MAINTENANCE.kind })]),
    );
    return engine;
  }

  /**
   * How the due work of each kind stands now (waiting, running, scheduled, dead, and the oldest
   * waiting item's due time): for metrics, read at each scrape. One storage statement.
   */
  dueWorkStats(): Promise<DueWorkKindStats[]> {
    const deps = engineDeps(this);
    const now = deps.clock.now();
    return deps.storage.transaction((tx) => tx.work.stats(now));
  }

  /** Whether this engine can serve: storage answers, its schema is in place, the workers run. */
  readiness(): Promise<Readiness> {
    return checkReadiness(engineDeps(this), this.worker, this.storageInitialized());
  }

  /**
   * Stops the workers and waits for the work in flight (at most `graceMs`, see `CloseOptions`),
   * answers the lists waiting for events, and closes the delivery adapter and storage.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    const deps = engineDeps(this);
    this.events.close();
    await this.worker.stop(options);
    await deps.delivery.close();
    await deps.blobs.close();
    await deps.storage.close();
  }
}

/**
 * The house account of a mode: made once, by whichever engine process gets there first (the
 * meta key decides), and found by every later start.
 */
async function houseAccount(tx: StorageTx, ids: IdGenerator, now: number, livemode: boolean): Promise<string> {
  const mode = livemode ? "live" : "test";
  const candidate = ids.next("acct");
  const id = await tx.meta.setIfAbsent(`house_account:${mode}`, candidate);
  if (id === candidate) await tx.accounts.insertAccount({ id, name: `house (${mode})`, livemode, settings: { house: true }, created: now });
  return id;
}

export function createEngine(options: EngineOptions): Promise<Engine> {
  return Engine.create(options);
}

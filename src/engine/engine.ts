import { ChainDirectory } from "../chains/chain-directory";
import { IdGenerator, cryptoRandom, randomToken } from "../ids";
import { CursorCodec } from "../lists/cursor-codec";
import { AssetRegistry } from "../money/assets";
import type { Clock } from "../ports/clock";
import { adapterTiming, guardMethods, guardObserver, guardStorage } from "../ports/guard";
import { NO_OBSERVER, type EngineObserver } from "../ports/observer";
import { NO_TRACER, type Tracer } from "../ports/tracer";
import { tracedDelivery } from "../ports/traced-calls";
import type { DueWorkKindStats, StorageAdapter, StorageTx } from "../ports/storage";
import { VenueDirectory } from "../quoting/venue-set";
import { FileLinks } from "../files/file-links";
import { newDueWork } from "../workers/due-work";
import { MAINTENANCE, maintenanceHandler } from "../workers/maintenance";
import { WorkerRunner, type WorkerOptions } from "../workers/runner";
import { DEFAULT_HEARTBEAT, ProcessLease } from "../workers/process-lease";
import { moduleDeps } from "./command";
import { DEFAULT_CONFIG, type EngineDeps, type ModuleDeps } from "./context";
import { IdempotencyService } from "./idempotency";
import { RateLimitService } from "./rate-limits";
import { checkReadiness, type Readiness } from "./readiness";
import { StorageWatch, type StorageFailure } from "./storage-watch";
import { EngineCatalogue } from "./catalogue";
import type { AnyModule, ApisOf, Kernel, RecurringWork, ResourceModule } from "./module";
import { bindDownload, bindRoute, type EngineDownloadRoute, type EngineRoute } from "./route";
import type { CloseOptions, EngineOptions } from "./engine-options";
import { tracedApi } from "./tracing";

export type { CloseOptions, EngineOptions } from "./engine-options";

/** What an engine was built from and what its modules provide each other: never a member of it. */
interface EngineInternals {
  deps: EngineDeps;
  /** What the modules were built from (`Kernel.deps`). */
  moduleDeps: ModuleDeps;
  provided: ReadonlyMap<AnyModule, unknown>;
}

const internalsOf = new WeakMap<Engine, EngineInternals>();

/**
 * What the engine is built from, for code inside this package that needs it (tests, benchmarks,
 * the conformance suites); hosts use the engine's members.
 */
export function engineDeps(engine: Engine): EngineDeps {
  return internalsOf.get(engine)!.deps;
}

/** What the engine's modules were built from, for code of this package that builds a module's part by hand (tests). */
export function engineModuleDeps(engine: Engine): ModuleDeps {
  return internalsOf.get(engine)!.moduleDeps;
}

/**
 * What a module of the engine provides the modules after it (`ModuleParts.provides`), for code
 * inside this package that drives a module's internals step by step (tests).
 */
export function provided<P>(engine: Engine, module: ResourceModule<string, any, P, any>): P {
  const parts = internalsOf.get(engine)!.provided;
  if (!parts.has(module)) throw new Error(`module ${module.name} is not in this engine`);
  return parts.get(module) as P;
}

/** An engine with the host APIs of the modules `M`. */
export type EngineOf<M extends readonly AnyModule[]> = Engine & ApisOf<M>;

/**
 * The composition root: ports and modules in, the modules' host APIs and the workers out. The
 * class holds what every engine has whatever its modules; `EngineOf<M>` adds the modules' APIs
 * (`engine.payouts`, …). Engines hold no state between requests beyond caches, so any number of
 * them can share one database.
 */
export class Engine {
  /** The due-work runner: `start()` it to run background work, `runDue()` in tests. */
  readonly worker: WorkerRunner;
  /** Idempotency keys (docs/decisions.md §3), for a binding that honours `Idempotency-Key`. */
  readonly idempotency: IdempotencyService;
  /** Rate limits counted in storage, for a binding that limits requests. */
  readonly rateLimits: RateLimitService;
  /** Every route of every module, framework-neutral and bound to its module (`payrail/http` mounts them). */
  readonly routes: readonly EngineRoute[];
  /** Routes that answer files to holders of signed links, without an API key. */
  readonly downloads: readonly EngineDownloadRoute[];
  /** What the modules declare: event types, scopes, id prefixes, tags. */
  readonly catalogue: EngineCatalogue;
  /** The modules' `close` hooks. */
  private readonly closing: (() => void)[] = [];
  /** The modules' self-rescheduling engine work, enqueued as the engine is created (`ModuleParts.recurring`). */
  private readonly recurring: RecurringWork[] = [];

  private constructor(
    deps: EngineDeps,
    modules: readonly AnyModule[],
    workerOptions: WorkerOptions,
    private readonly storageInitialized: () => boolean,
    /** How storage sessions end: its health for `readiness`, a request's effects for idempotency. */
    private readonly storageWatch: StorageWatch,
    lease: ProcessLease,
  ) {
    const worker = new WorkerRunner(deps.storage, deps.clock, deps.ids, deps.random, workerOptions, deps.parse, deps.observer, lease, deps.tracer);
    this.worker = worker;
    this.catalogue = deps.catalogue;
    const committed: (() => void)[] = [];
    deps.wakeWorkers = () => {
      worker.wake();
      for (const hook of committed) hook();
    };
    this.idempotency = new IdempotencyService(deps, storageWatch);
    this.rateLimits = new RateLimitService(deps, storageWatch);
    worker.handle(MAINTENANCE, maintenanceHandler(deps));
    const provided = new Map<AnyModule, unknown>();
    const forModules = moduleDeps(deps);
    const kernel: Kernel = {
      deps: forModules,
      worker,
      use: (module) => {
        if (!provided.has(module)) throw new Error(`module ${module.name} is used before it is set up (or is not in the engine's list)`);
        return provided.get(module) as never;
      },
    };
    const routes: EngineRoute[] = [];
    const downloads: EngineDownloadRoute[] = [];
    for (const module of modules) {
      const parts = module.setup(kernel);
      provided.set(module, parts.provides);
      // each operation a span, whoever calls it (the routes below, or the host)
      const api = Object.fromEntries(Object.entries(parts.api).map(([name, member]) => [name, tracedApi(deps.tracer, name, member)]));
      for (const [name, member] of Object.entries(api)) {
        if (name in this) throw new TypeError(`module ${module.name}: engine.${name} is taken`);
        Object.defineProperty(this, name, { value: member, enumerable: true });
      }
      this.recurring.push(...(parts.recurring ?? []));
      for (const binding of parts.work ?? []) {
        if (binding.lane) worker.addLane({ kinds: [binding.def.kind], ...binding.lane });
        worker.handle(binding.def, binding.handler);
      }
      if (parts.committed) committed.push(parts.committed);
      if (parts.close) this.closing.push(parts.close);
      routes.push(...(module.routes ?? []).map((route) => bindRoute(route, api)));
      downloads.push(...(module.downloads ?? []).map((route) => bindDownload(route, api)));
    }
    internalsOf.set(this, { deps, moduleDeps: forModules, provided });
    this.routes = routes;
    this.downloads = downloads;
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

  /** Where spans go (the host's tracer; `NO_TRACER` by default): the HTTP binding traces each request with it. */
  get tracer(): Tracer {
    return engineDeps(this).tracer;
  }

  /** A new request id (`req_…`), for a binding to answer with and record on events. */
  newRequestId(): string {
    return engineDeps(this).ids.next("req");
  }

  /**
   * Creates an engine of `modules` (set up in their order): initialises storage (migrations) and
   * schedules housekeeping.
   */
  static async create<const M extends readonly AnyModule[]>(options: EngineOptions, modules: M): Promise<EngineOf<M>> {
    const catalogue = new EngineCatalogue(modules);
    const { clock } = options;
    const watch = new StorageWatch(clock);
    const tracer = options.tracer ?? NO_TRACER;
    const storage = guardStorage(options.storage, watch, tracer);
    await storage.init();
    const random = options.random ?? cryptoRandom;
    const ids = new IdGenerator(clock, random, catalogue.prefixes);
    const secret = options.secret ?? (await storage.transaction((tx) => tx.meta.setIfAbsent("cursor_secret", randomToken(random, 32))));
    const house = await storage.transaction(async (tx) => ({
      test: await houseAccount(tx, ids, clock.now(), false),
      live: await houseAccount(tx, ids, clock.now(), true),
    }));
    const observer = guardObserver(options.observer ?? NO_OBSERVER, (e) => options.worker?.onError?.(e));
    const delivery = tracedDelivery(options.delivery, tracer);
    const startedAt = clock.now();
    if (options.exclusiveStorage) await storage.transaction((tx) => tx.work.releaseAllLeases(startedAt));
    const assets = AssetRegistry.withDefaults(options.assets, options.chains);
    const heartbeat = options.worker?.heartbeat;
    // one process per store (memory, PGlite, an exclusive database): nobody to take over from
    const alone = heartbeat === false || options.exclusiveStorage || (heartbeat === undefined && !storage.capabilities.concurrentTransactions);
    let wake = () => undefined as void;
    const lease = new ProcessLease(storage, clock, ids, alone ? null : { ...DEFAULT_HEARTBEAT, ...heartbeat }, {
      onError: options.worker?.onError,
      onReaped: () => wake(),
    });
    const deps: EngineDeps = {
      storage,
      house,
      clock,
      ids,
      random,
      assets,
      cursors: new CursorCodec(Buffer.from(secret)),
      config: { ...DEFAULT_CONFIG, ...options.config },
      chains: new ChainDirectory(
        options.chainAdapters,
        (name) => adapterTiming(observer, clock, "chain", name, tracer),
        (o) => observer.domainObserved?.(o),
      ),
      screening: guardMethods(options.screening.name, options.screening, "", adapterTiming(observer, clock, "screening", options.screening.name, tracer)),
      delivery: guardMethods(options.delivery.name, delivery.adapter, "", delivery.timing),
      wakeWorkers: () => undefined,
      venues: new VenueDirectory(options.venues, (name) => adapterTiming(observer, clock, "venue", name, tracer)),
      blobs: guardMethods(options.blobs.name, options.blobs),
      fileLinks: new FileLinks(secret),
      publicUrl: options.publicUrl ?? null,
      observer,
      tracer,
      claimsValidFrom: options.exclusiveStorage ? startedAt : Number.NEGATIVE_INFINITY,
      process: lease,
      catalogue,
      parse: { assets, catalogue },
    };
    const engine = new Engine(deps, modules, options.worker ?? {}, () => storage.initialized, watch, lease);
    wake = () => engine.worker.wake(); // an owner declared dead: its items are claimable now
    const now = clock.now();
    const recurring = engine.recurring.map((r) => newDueWork(ids, now, r.def, r.payload, null, { dedupeKey: r.dedupeKey, runAt: now + r.firstRunInMs }));
    await storage.transaction((tx) => tx.work.enqueue([newDueWork(ids, now, MAINTENANCE, {}, null, { dedupeKey: MAINTENANCE.kind }), ...recurring]));
    return engine as EngineOf<M>;
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

  /**
   * Storage failing now, as the outcomes of this process's storage sessions say (a session ended
   * in `StorageUnavailableError` and none succeeded since), or null: for a metric or a log line.
   */
  storageFailure(): StorageFailure | null {
    return this.storageWatch.failure;
  }

  /**
   * Calls `listener` when storage starts failing as unavailable (`failure`) and when it serves
   * again (null, with the `previous` failure): for a host's log lines.
   */
  onStorageChange(listener: (failure: StorageFailure | null, previous: StorageFailure | null) => void): void {
    this.storageWatch.onChange(listener);
  }

  /** Whether this engine can serve: storage answers, its schema is in place, the workers run. */
  readiness(): Promise<Readiness> {
    return checkReadiness(engineDeps(this), this.worker, this.storageInitialized(), this.storageWatch);
  }

  /**
   * Answers every request that waits on the engine (event lists long-polling with `wait`) at
   * once, and every later one without waiting: the first step of a shutdown, before a server
   * drains its connections. `close` does it too.
   */
  stopWaiting(): void {
    for (const close of this.closing) close();
  }

  /**
   * Stops the workers and waits for the work in flight (at most `graceMs`, see `CloseOptions`),
   * answers the lists waiting for events, and closes the delivery adapter and storage.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    const deps = engineDeps(this);
    this.stopWaiting();
    this.idempotency.stop();
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

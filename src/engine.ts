import { SystemClock } from "../adapters/clock/system-clock";
import { CursorCodec } from "./lists/cursor-codec";
import { IdGenerator, cryptoRandom, randomToken, type RandomSource } from "./ids";
import { AssetRegistry, type AssetDefinition, type ChainDefinition } from "./money/assets";
import type { Clock } from "./ports/clock";
import { guardStorage } from "./ports/guard";
import type { StorageAdapter } from "./ports/storage";
import { AccountsService } from "./services/accounts";
import { AuthService } from "./services/auth";
import { BalancesService } from "./services/balances";
import { DEFAULT_CONFIG, type EngineConfig, type EngineDeps } from "./services/context";
import { EventsService } from "./services/events";
import { IdempotencyService } from "./services/idempotency";
import { TestHelpersService } from "./services/test-helpers";
import { MAINTENANCE_KIND, maintenanceHandler } from "./workers/maintenance";
import type { VenueAdapter } from "./ports/venue";
import { VenueSet } from "./quoting/venue-set";
import { QuotesService } from "./services/quotes";
import { SWAP_EXECUTE_KIND, SwapsService } from "./services/swaps";
import { LIMIT_ORDER_EXPIRE_KIND, LIMIT_ORDER_MATCH_KIND, LimitOrdersService } from "./services/limit-orders";
import { WorkerRunner, type WorkerOptions } from "./workers/runner";

export interface EngineOptions {
  /** Where everything is kept: `createMemoryStorage()` or `createPostgresStorage(…)`. */
  storage: StorageAdapter;
  /** Source of time; default the system clock. Tests pass a `ManualClock`. */
  clock?: Clock;
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
   * Where conversions execute: quotes, swaps and limit orders price across every venue these
   * adapters offer (e.g. `new SimulatedVenues({ clock })`). None: quotes answer `no_route`.
   */
  venues?: VenueAdapter[];
}

/**
 * The composition root: ports in, services and workers out. Engines hold no state between
 * requests beyond caches, so any number of them can share one database.
 */
export class Engine {
  readonly accounts: AccountsService;
  readonly auth: AuthService;
  readonly balances: BalancesService;
  readonly events: EventsService;
  readonly idempotency: IdempotencyService;
  readonly testHelpers: TestHelpersService;
  readonly worker: WorkerRunner;
  readonly quotes: QuotesService;
  readonly swaps: SwapsService;
  readonly limitOrders: LimitOrdersService;

  private constructor(
    readonly deps: EngineDeps,
    workerOptions: WorkerOptions,
  ) {
    const worker = new WorkerRunner(deps.storage, deps.clock, deps.ids, deps.random, workerOptions);
    this.worker = worker;
    deps.wakeWorkers = () => worker.wake();
    this.accounts = new AccountsService(deps);
    this.auth = new AuthService(deps);
    this.balances = new BalancesService(deps);
    this.events = new EventsService(deps);
    this.idempotency = new IdempotencyService(deps);
    this.testHelpers = new TestHelpersService(deps, worker);
    worker.register(MAINTENANCE_KIND, maintenanceHandler(deps));
    this.quotes = new QuotesService(deps);
    this.swaps = new SwapsService(deps);
    this.limitOrders = new LimitOrdersService(deps);
    worker.register(SWAP_EXECUTE_KIND, (job) => this.swaps.executeDue(job));
    worker.register(LIMIT_ORDER_MATCH_KIND, (job) => this.limitOrders.matchDue(job));
    worker.register(LIMIT_ORDER_EXPIRE_KIND, (job) => this.limitOrders.expireDue(job));
  }

  get clock(): Clock {
    return this.deps.clock;
  }

  get assets(): AssetRegistry {
    return this.deps.assets;
  }

  get storage(): StorageAdapter {
    return this.deps.storage;
  }

  /** Creates an engine: initialises storage (migrations) and schedules housekeeping. */
  static async create(options: EngineOptions): Promise<Engine> {
    const storage = guardStorage(options.storage);
    await storage.init();
    const clock = options.clock ?? new SystemClock();
    const random = options.random ?? cryptoRandom;
    const ids = new IdGenerator(clock, random);
    const secret =
      options.secret ??
      (await storage.transaction((tx) => tx.meta.setIfAbsent("cursor_secret", randomToken(random, 32))));
    const deps: EngineDeps = {
      storage,
      clock,
      ids,
      random,
      assets: AssetRegistry.withDefaults(options.assets, options.chains),
      cursors: new CursorCodec(Buffer.from(secret)),
      config: { ...DEFAULT_CONFIG, ...options.config },
      wakeWorkers: () => undefined,
      venues: new VenueSet(options.venues ?? []),
    };
    const engine = new Engine(deps, options.worker ?? {});
    await storage.transaction((tx) =>
      tx.work.enqueue([
        {
          id: ids.next("job"),
          kind: MAINTENANCE_KIND,
          accountId: null,
          payload: {},
          runAt: clock.now(),
          leaseOwner: null,
          leaseUntil: null,
          attempts: 0,
          lastError: null,
          status: "ready",
          dedupeKey: MAINTENANCE_KIND,
          created: clock.now(),
        },
      ]),
    );
    return engine;
  }

  /** Stops the workers, waits for the work in flight, and closes storage. */
  async close(): Promise<void> {
    await this.worker.stop();
    await this.deps.storage.close();
  }
}

export function createEngine(options: EngineOptions): Promise<Engine> {
  return Engine.create(options);
}

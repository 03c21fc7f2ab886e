import { SimulatedChains } from "../adapters/chains/simulated/simulated-chains";
import { SystemClock } from "../adapters/clock/system-clock";
import { SimulatedScreening } from "../adapters/screening/simulated-screening";
import { ChainDirectory } from "./chains/chain-directory";
import { createHttpDelivery } from "../adapters/delivery/http-delivery";
import { CursorCodec } from "./lists/cursor-codec";
import { IdGenerator, cryptoRandom, randomToken, type RandomSource } from "./ids";
import { AssetRegistry, type AssetDefinition, type ChainDefinition } from "./money/assets";
import type { ChainAdapter } from "./ports/chain";
import type { Clock } from "./ports/clock";
import type { DeliveryAdapter } from "./ports/delivery";
import { guardMethods, guardStorage } from "./ports/guard";
import type { ScreeningAdapter } from "./ports/screening";
import type { StorageAdapter } from "./ports/storage";
import { AccountsService } from "./services/accounts";
import { AuthService } from "./services/auth";
import { BalancesService } from "./services/balances";
import { DEFAULT_CONFIG, type EngineConfig, type EngineDeps } from "./services/context";
import { EventsService } from "./services/events";
import { IdempotencyService } from "./services/idempotency";
import { BatchCounts } from "./services/payouts/batch-counts";
import { BatchesService } from "./services/payouts/batches-service";
import { BROADCAST_KIND, PayoutTransitions, TRACK_KIND } from "./services/payouts/payout-transitions";
import { PayoutWorkers } from "./services/payouts/payout-workers";
import { PayoutsService } from "./services/payouts/payouts-service";
import { RateLimitService } from "./services/rate-limits";
import { RecipientsService, SCREEN_KIND } from "./services/recipients";
import { ChainWatchers, WATCH_KIND } from "./services/payment-intents/chain-watchers";
import { DepositIngestion } from "./services/payment-intents/deposit-ingestion";
import { EXPIRE_KIND, PaymentIntentsService } from "./services/payment-intents/payment-intents-service";
import { ChainHelpersService, TestHelpersService } from "./services/test-helpers";
import { WebhookDeliveriesService } from "./services/webhook-deliveries";
import { WebhookEndpointsService } from "./services/webhook-endpoints";
import { MAINTENANCE_KIND, maintenanceHandler } from "./workers/maintenance";
import type { VenueAdapter } from "./ports/venue";
import { VenueSet } from "./quoting/venue-set";
import { QuotesService } from "./services/quotes";
import { SWAP_EXECUTE_KIND, SwapsService } from "./services/swaps";
import { LIMIT_ORDER_EXPIRE_KIND, LIMIT_ORDER_MATCH_KIND, LimitOrdersService } from "./services/limit-orders";
import { WorkerRunner, type WorkerOptions } from "./workers/runner";
import { registerWebhookWorkers } from "./workers/webhook-delivery";

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
  /**
   * Chain adapters, each serving the chains it names. Default: `SimulatedChains` on the engine's
   * clock, which serves test-mode accounts only.
   */
  chainAdapters?: ChainAdapter[];
  /** Recipient screening. Default: `SimulatedScreening` (test-mode accounts only). */
  screening?: ScreeningAdapter;
  config?: Partial<EngineConfig>;
  worker?: WorkerOptions;
  /**
   * Sends webhook attempts. Default `createHttpDelivery()`: HTTPS to public addresses only; pass
   * `createHttpDelivery({ allowPrivateNetworks: true })` for local receivers. The engine closes it.
   */
  delivery?: DeliveryAdapter;
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
  readonly rateLimits: RateLimitService;
  readonly recipients: RecipientsService;
  readonly payouts: PayoutsService;
  readonly batches: BatchesService;
  readonly paymentIntents: PaymentIntentsService;
  readonly deposits: DepositIngestion;
  readonly testHelpers: TestHelpersService;
  readonly chainHelpers: ChainHelpersService;
  readonly worker: WorkerRunner;
  readonly webhookEndpoints: WebhookEndpointsService;
  readonly webhookDeliveries: WebhookDeliveriesService;
  readonly quotes: QuotesService;
  readonly swaps: SwapsService;
  readonly limitOrders: LimitOrdersService;

  private constructor(
    readonly deps: EngineDeps,
    workerOptions: WorkerOptions,
    private readonly delivery: DeliveryAdapter,
  ) {
    const worker = new WorkerRunner(deps.storage, deps.clock, deps.ids, deps.random, workerOptions);
    this.worker = worker;
    deps.wakeWorkers = () => worker.wake();
    this.accounts = new AccountsService(deps);
    this.auth = new AuthService(deps);
    this.balances = new BalancesService(deps);
    this.events = new EventsService(deps);
    this.idempotency = new IdempotencyService(deps);
    this.rateLimits = new RateLimitService(deps);
    this.recipients = new RecipientsService(deps);
    const transitions = new PayoutTransitions(deps);
    const batchCounts = new BatchCounts(deps);
    const payoutWorkers = new PayoutWorkers(deps, transitions, batchCounts);
    this.payouts = new PayoutsService(deps, transitions, batchCounts, payoutWorkers);
    this.batches = new BatchesService(deps, this.payouts, transitions);
    this.deposits = new DepositIngestion(deps);
    const watchers = new ChainWatchers(deps, this.deposits);
    this.paymentIntents = new PaymentIntentsService(deps, this.deposits, watchers);
    this.testHelpers = new TestHelpersService(deps, worker);
    this.chainHelpers = new ChainHelpersService(deps, watchers);
    worker.register(MAINTENANCE_KIND, maintenanceHandler(deps));
    worker.register(SCREEN_KIND, this.recipients.screeningHandler());
    worker.register(BROADCAST_KIND, payoutWorkers.broadcastHandler());
    worker.register(TRACK_KIND, payoutWorkers.trackHandler());
    worker.register(WATCH_KIND, watchers.handler());
    worker.register(EXPIRE_KIND, this.paymentIntents.expiryHandler());
    this.webhookEndpoints = new WebhookEndpointsService(deps, delivery);
    this.webhookDeliveries = new WebhookDeliveriesService(deps, this.webhookEndpoints);
    registerWebhookWorkers(worker, this.webhookDeliveries, delivery, {
      concurrency: deps.config.webhookConcurrency,
      perEndpoint: deps.config.webhookEndpointConcurrency,
      // the lease outlasts the attempt's timeout by half a minute of database work
      leaseMs: Math.max(workerOptions.leaseMs ?? 60_000, deps.config.webhookTimeoutMs + 30_000),
    });
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
    const assets = AssetRegistry.withDefaults(options.assets, options.chains);
    const screening = options.screening ?? new SimulatedScreening({ clock });
    const deps: EngineDeps = {
      storage,
      clock,
      ids,
      random,
      assets,
      cursors: new CursorCodec(Buffer.from(secret)),
      config: { ...DEFAULT_CONFIG, ...options.config },
      chains: new ChainDirectory(options.chainAdapters ?? [new SimulatedChains({ clock, assets })]),
      screening: guardMethods(screening.name, screening),
      wakeWorkers: () => undefined,
      venues: new VenueSet(options.venues ?? []),
    };
    const delivery = options.delivery ?? createHttpDelivery();
    const engine = new Engine(deps, options.worker ?? {}, guardMethods(delivery.name, delivery));
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
    await this.delivery.close();
    await this.deps.storage.close();
  }
}

export function createEngine(options: EngineOptions): Promise<Engine> {
  return Engine.create(options);
}

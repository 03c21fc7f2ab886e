import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { join } from "node:path";
import { createFileBlobStore } from "../blobs/file-blob-store";
import type { BlobStore } from "../../src/ports/blobs";
import pino from "pino";
import { logObserver, type Logger } from "../logging/logger";
import { PrometheusMetrics } from "../prometheus/prometheus-metrics";
import { combineObservers } from "../../src/ports/observer";
import type { Tracer } from "../../src/ports/tracer";
import { type PayrailEngine as Engine, createEngine } from "../../src/modules";
import type { Clock } from "../../src/ports/clock";
import type { StorageAdapter } from "../../src/ports/storage";
import type { HeartbeatOptions } from "../../src/workers/process-lease";
import { systemContext } from "../../src/engine/context";
import { createHttpApp } from "../http/app";
import { BASIC_CHALLENGE, apiKeyAuthorizer, createConsole, createWebhookPortal } from "../console";
import { createNodeServer, type ServerLimits } from "../http/node-server";
import { RequestLog } from "../http/request-log";
import { connectPostgres, openPGlite } from "../postgres";
import { SystemClock } from "../clock";
import { devPorts } from "../dev";
import type { VenueAdapter } from "../../src/ports/venue";
import { ensureLiveAccount, liveChainAdapters, type LiveChainsOptions } from "./live-chains";
import { checkLiveAdapters, refuseFailures } from "./live-checks";

export interface HostOptions {
  /** TCP port; 0 picks a free one (default 4000). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  hostname?: string;
  /** PGlite data folder when no `databaseUrl`, and report files in its `blobs/` (default `.payrail-data`). */
  dataDir?: string;
  /** Use a PostgreSQL server instead of embedded PGlite. */
  databaseUrl?: string;
  /**
   * Run embedded PGlite in a worker thread of its own, off the event loop that serves requests
   * (`openPGlite` with `thread`, docs/performance.md). Default true; `false` (`PAYRAIL_PGLITE_THREAD=0`)
   * runs it in the host's own thread, as before.
   */
  pgliteThread?: boolean;
  /** With `databaseUrl`: the partitioned layout, this many hash partitions by account (`PAYRAIL_DB_PARTITIONS`, docs/scaling.md). */
  databasePartitions?: number;
  /** Fix the demo account's API key (`PAYRAIL_API_KEY`). */
  apiKey?: string;
  /** Use this storage instead of PGlite or `databaseUrl`. */
  storage?: StorageAdapter;
  /** Where report files go (default: files under `<dataDir>/blobs`). */
  blobs?: BlobStore;
  /**
   * Origin clients reach the host at, for report download links (default: the address the
   * request's connection reached, such as `http://127.0.0.1:4000`; never the `Host` header).
   */
  publicUrl?: string;
  clock?: Clock;
  /** Venues to convert on (default: the simulated venues on the host's clock). */
  venues?: VenueAdapter[];
  /** Structured logs (default: none). `createLogger()` from adapters/logging redacts secrets. */
  logger?: Logger;
  /**
   * The Prometheus metrics served on `GET /metrics` (default: a registry of its own, with the
   * process metrics; webhook attempts without endpoint ids unless `metricsEndpointLabels`).
   * Pass `false` to serve none.
   */
  metrics?: PrometheusMetrics | false;
  /** `PAYRAIL_METRICS_TOKEN`: `GET /metrics` then needs `Authorization: Bearer <token>` (default: open). */
  metricsToken?: string;
  /** Traces requests, operations, due work and adapter calls (`createOpenTelemetryTracer()` of `payrail/adapters/otel`; default: none). */
  tracer?: Tracer;
  /** `PAYRAIL_METRICS_ENDPOINT_LABELS=1`: label webhook attempt metrics with each endpoint's id (one series per endpoint of every account). */
  metricsEndpointLabels?: boolean;
  /**
   * Timeouts and the connection cap of the HTTP server (`PAYRAIL_HEADERS_TIMEOUT_SECONDS`,
   * `PAYRAIL_REQUEST_TIMEOUT_SECONDS`, `PAYRAIL_KEEP_ALIVE_TIMEOUT_SECONDS`,
   * `PAYRAIL_MAX_CONNECTIONS`; defaults `DEFAULT_SERVER_LIMITS`: 10 s, 60 s, 5 s, 1024).
   */
  serverLimits?: Partial<ServerLimits>;
  /**
   * How long `stop` waits for requests and work in flight before it cuts them (default 10 s).
   * Work cut then gives its lease back, so another process takes it at once.
   */
  shutdownGraceMs?: number;
  /**
   * Let webhooks reach plain-http, loopback and private receivers (local development;
   * `PAYRAIL_ALLOW_PRIVATE_WEBHOOKS=1`). Default false: HTTPS to public addresses only.
   */
  allowPrivateWebhooks?: boolean;
  /**
   * Serve the operator console at `/console` and the webhook portal at `/portal` (default true),
   * signed in with HTTP Basic authentication whose password is an API key (docs/console.md).
   */
  console?: boolean;
  /**
   * Live chains (docs/decisions.md §9), EVM and Solana: `PAYRAIL_CHAINS` and `PAYRAIL_SIGNER_MNEMONIC`
   * (or signers). Without them every chain is simulated and serves test mode only, as before.
   */
  live?: LiveChainsOptions;
  /** `PAYRAIL_LIVE_API_KEY`: makes (or, after a restart, finds) a live demo account with this key. */
  liveApiKey?: string;
  /** How long a leg being sent belongs to the process sending it (`PAYRAIL_SEND_CLAIM_SECONDS`; default 60 s). */
  sendClaimMs?: number;
  /**
   * How long every delivery to a webhook endpoint may fail before it is disabled
   * (`PAYRAIL_WEBHOOK_DISABLE_AFTER_SECONDS`; default 5 days).
   */
  webhookDisableAfterMs?: number;
  /**
   * The heartbeat of this process on a PostgreSQL server (`PAYRAIL_HEARTBEAT_SECONDS`, default
   * 1 s; `PAYRAIL_OWNER_LIFETIME_SECONDS`, default 5 s): another process takes over its work, leg
   * claims and Idempotency-Keys once it has not been heard from for the lifetime.
   */
  heartbeat?: Partial<HeartbeatOptions>;
}

export interface RunningHost {
  url: string;
  /** Where the operator console answers (sign in with an API key as the password), or null when it is off. */
  consoleUrl: string | null;
  apiKey: string;
  accountId: string;
  /** The live demo account, when `liveApiKey` was given. */
  liveAccountId: string | null;
  engine: Engine;
  metrics: PrometheusMetrics | null;
  /**
   * Shuts down cleanly, within `shutdownGraceMs`: `/readyz` answers 503 at once, the port is
   * closed to new connections, waiting event lists answer, requests and work in flight get the
   * grace to finish; then open connections are cut, leases still held are given back, and
   * storage is closed. Calling it again returns the same promise.
   */
  stop(): Promise<ShutdownReport>;
}

/** What a shutdown had to cut short. */
export interface ShutdownReport {
  /** Connections still open (a request in flight, or kept alive) when the grace ran out. */
  connectionsCut: number;
  /** Due-work items still running when the grace ran out, whose leases were given back. */
  leasesReleased: number;
  durationMs: number;
}

const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** What a new demo account is funded with, per chain the asset lives on (test mode). */
export const DEMO_FUNDING: Record<string, string> = {
  USDC: "1000000",
  USDT: "1000000",
  EURC: "1000000",
  ETH: "1000",
  BTC: "100",
  SOL: "100000",
};

/**
 * The runnable host of docs/decisions.md §8: the whole /v1 API on embedded storage that survives a
 * restart, a funded test-mode demo account, and the background workers.
 */
export async function startHost(options: HostOptions = {}): Promise<RunningHost> {
  const logger = options.logger ?? pino({ level: "silent" });
  const storage =
    options.storage ??
    (options.databaseUrl
      ? await connectPostgres(options.databaseUrl, options.databasePartitions ? { partitions: options.databasePartitions } : {})
      : await openPGlite(options.dataDir ?? ".payrail-data", { thread: options.pgliteThread ?? true }));
  // The simulated venues price on the engine's own clock, so quotes move with real time.
  const clock = options.clock ?? new SystemClock();
  const metrics =
    options.metrics === false
      ? null
      : (options.metrics ?? new PrometheusMetrics({ processMetrics: true, endpointLabels: options.metricsEndpointLabels ?? false }));
  // The simulated chains keep their world in the engine's storage: a restart loses no deposit.
  const ports = devPorts({ clock, allowPrivateWebhooks: options.allowPrivateWebhooks ?? false, storage });
  const venues = options.venues ?? ports.venues ?? [];
  // Test mode keeps the simulated chains; live chains serve live accounts beside them, once what
  // their settings say checked out against the chains themselves (decimals, chain ids, the hot
  // wallet this storage was used with): a mismatch refuses to start, a warning is logged. Each
  // adapter checks again before it first moves anything.
  const live = options.live
    ? await (async () => {
        await storage.init(); // the adapters' checks keep what they check against (the hot wallet) in storage
        const made = await liveChainAdapters(options.live!, { storage, clock });
        for (const check of refuseFailures(await checkLiveAdapters([...made.adapters, ...made.venues]))) {
          if (check.outcome === "warning") logger.warn({ check: check.subject }, check.message);
        }
        return made;
      })().catch(async (e: unknown) => {
        await storage.close();
        throw e;
      })
    : null;
  const engine = await createEngine({
    storage,
    // the embedded database is this process's alone: what a killed run had claimed is taken back at once
    exclusiveStorage: !options.storage && !options.databaseUrl,
    ...ports,
    // live accounts are priced and filled by the live venues only, test accounts by the simulated ones
    venues: [...venues, ...(live?.venues ?? [])],
    ...(live ? { chainAdapters: [...(ports.chainAdapters ?? []), ...live.adapters] } : {}),
    config: {
      ...(options.sendClaimMs !== undefined ? { sendClaimMs: options.sendClaimMs } : {}),
      ...(options.webhookDisableAfterMs !== undefined ? { webhookDisableAfterMs: options.webhookDisableAfterMs } : {}),
    },
    blobs: options.blobs ?? createFileBlobStore({ directory: join(options.dataDir ?? ".payrail-data", "blobs") }),
    ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
    observer: metrics ? combineObservers(metrics.observer, logObserver(logger)) : logObserver(logger),
    ...(options.tracer ? { tracer: options.tracer } : {}),
    worker: {
      ...(options.heartbeat ? { heartbeat: options.heartbeat } : {}),
      onError: (e, job) =>
        logger.warn(
          { err: e, ...(job ? { job: job.id, kind: job.kind, attempt: job.attempts, ...(job.request?.id ? { request_id: job.request.id } : {}) } : {}) },
          "due work failed",
        ),
    },
  });
  metrics?.attach(engine);
  engine.onStorageChange((failure, previous) => {
    if (failure) logger.warn({ reason: failure.reason, error: failure.message }, "storage unavailable");
    else if (previous) logger.info({ reason: previous.reason, duration_ms: clock.now() - previous.since }, "storage available again");
  });
  let draining = false;
  try {
    const { accountId, apiKey } = await ensureDemoAccount(engine, options.apiKey, logger);
    if (live) logger.info({ chains: live.chains, hot_wallets: live.hotWallets }, "live chains");
    const liveAccountId = options.liveApiKey ? await ensureLiveAccount(engine, options.liveApiKey, (line) => logger.info(line)) : null;
    const onInternalError = (e: unknown, requestId: string) => logger.error({ err: e, request_id: requestId }, "internal error");
    const app = createHttpApp(engine, {
      onInternalError,
      health: { draining: () => draining },
      ...(metrics ? { metrics } : {}),
      ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
      requestLog: new RequestLog(),
    });
    const surfaces = options.console === false ? [] : consoleSurfaces(engine, onInternalError);
    // the node server's bindings (the connection, for the address it reached) go along to either app
    const fetch = (request: Request, env?: unknown) => {
      const path = new URL(request.url).pathname;
      const surface = surfaces.find((s) => path === s.base || path.startsWith(`${s.base}/`));
      return surface ? surface.app.fetch(request, env) : app.fetch(request, env);
    };
    const hostname = options.hostname ?? "127.0.0.1";
    let refused = 0;
    const server = createNodeServer(fetch, engine, {
      ...options.serverLimits,
      onInternalError,
      // at most one line a minute while connections are refused, however many there are
      onConnectionRefused: () => {
        if (refused++ > 0) return;
        logger.warn("a connection was refused: the server's connection cap is reached");
        setTimeout(() => {
          if (refused > 1) logger.warn({ refused: refused - 1 }, "more connections refused in the last minute");
          refused = 0;
        }, 60_000).unref();
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 4000, hostname, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    engine.worker.start();
    const url = `http://${hostname}:${port}`;
    logger.info({ url, storage: engine.storage.name }, "listening");
    const grace = options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    let stopping: Promise<ShutdownReport> | null = null;
    return {
      url,
      consoleUrl: surfaces.length ? `${url}/console/` : null,
      apiKey,
      accountId,
      liveAccountId,
      engine,
      metrics,
      stop() {
        stopping ??= (async () => {
          draining = true;
          const report = await shutdown(server, engine, grace);
          logger.info({ connections_cut: report.connectionsCut, leases_released: report.leasesReleased, duration_ms: report.durationMs }, "stopped");
          return report;
        })();
        return stopping;
      },
    };
  } catch (e) {
    await engine.close();
    throw e;
  }
}

/** The console and the portal, signed in with an API key of the account (`apiKeyAuthorizer`). */
function consoleSurfaces(
  engine: Engine,
  onInternalError: (error: unknown, requestId: string) => void,
): { base: string; app: { fetch: (request: Request, env?: unknown) => Response | Promise<Response> } }[] {
  const options = { authorize: apiKeyAuthorizer(engine), challenge: BASIC_CHALLENGE, onInternalError };
  return [
    { base: "/console", app: createConsole(engine, options) },
    { base: "/portal", app: createWebhookPortal(engine, options) },
  ];
}

/**
 * The shutdown of `RunningHost.stop`: new connections are refused at once (the port is free),
 * idle keep-alive connections close, lists waiting for events answer; requests in flight and
 * the workers' items get `graceMs` together; then what is left is cut and storage closes.
 */
async function shutdown(server: Server, engine: Engine, graceMs: number): Promise<ShutdownReport> {
  const started = Date.now();
  const deadline = started + graceMs;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  engine.stopWaiting();
  const [connectionsCut, released] = await Promise.all([
    (async () => {
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), graceMs)))]);
      clearTimeout(timer);
      if (inTime) return 0;
      const open = await new Promise<number>((r) => server.getConnections((_e, n) => r(n ?? 0)));
      server.closeAllConnections();
      await closed;
      return open;
    })(),
    engine.worker.stop({ graceMs: Math.max(0, deadline - Date.now()) }),
  ]);
  // the workers were given their grace above: whatever still runs is not waited for again
  await engine.close({ graceMs: 0 });
  return { connectionsCut, leasesReleased: released.released, durationMs: Date.now() - started };
}

/** Creates the demo account on first start (funded) and makes sure its key works. */
async function ensureDemoAccount(engine: Engine, fixedKey: string | undefined, logger: Logger): Promise<{ accountId: string; apiKey: string }> {
  const meta = (key: string) => engine.storage.transaction((tx) => tx.meta.get(key));
  let accountId = await meta("demo_account_id");
  if (!accountId) {
    const account = await engine.accounts.create({ name: "Demo", livemode: false });
    accountId = await engine.storage.transaction((tx) => tx.meta.setIfAbsent("demo_account_id", account.id));
    if (accountId === account.id) {
      const ctx = systemContext(accountId, false);
      for (const asset of engine.assets.list()) {
        const amount = DEMO_FUNDING[asset.code];
        if (!amount) continue;
        for (const chain of asset.chains) {
          const funded = await engine.testHelpers.fund(ctx, { asset: asset.code, chain, amount });
          if (funded.isErr()) throw funded.error;
        }
      }
      logger.info({ account: accountId }, "created the demo account and funded it");
    }
  }
  // The demo key is kept in plain text so a restart can print it again: test mode only. One
  // revoked or rolled away over the API is replaced, not printed again.
  const usable = async (key: string) => (await engine.auth.authenticate(`Bearer ${key}`)).isOk();
  const kept = (await meta("demo_api_key")) ?? undefined;
  const apiKey = fixedKey ?? (kept !== undefined && (await usable(kept)) ? kept : undefined);
  const created = await engine.accounts.createApiKey(accountId, apiKey ? { key: apiKey } : {});
  if (created.isErr()) throw created.error;
  if (fixedKey && !(await usable(fixedKey))) logger.warn("PAYRAIL_API_KEY was revoked or has expired: requests with it are refused");
  await engine.storage.transaction((tx) => tx.meta.set("demo_api_key", created.value.key));
  return { accountId, apiKey: created.value.key };
}

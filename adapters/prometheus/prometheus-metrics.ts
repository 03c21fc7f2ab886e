import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { EngineObserver, DueWorkKindStats } from "../../src/ports/public";
import { domainMetrics, webhookBacklogMetrics } from "./domain-metrics";

export interface PrometheusMetricsOptions {
  /** Registry to register on (default: a new one, so two engines in one process never clash). */
  registry?: Registry;
  /** Name prefix of every payrail metric (default `payrail_`). */
  prefix?: string;
  /** Also collect prom-client's process and Node.js metrics (default false; the host turns them on). */
  processMetrics?: boolean;
  /**
   * Label the webhook attempt metrics with each endpoint's id (default false: by outcome only).
   * Endpoint ids belong to accounts: with the label, anyone who reads `/metrics` sees every
   * account's endpoints, and every endpoint is a series of its own.
   */
  endpointLabels?: boolean;
}

/** What the due-work gauges read at each scrape: an `Engine` (its `dueWorkStats` and clock). */
export interface DueWorkSource {
  dueWorkStats(): Promise<DueWorkKindStats[]>;
  readonly clock: { now(): number };
  /** Storage failing now (the engine's `storageFailure`), for `payrail_storage_up`. */
  storageFailure?(): { reason: string } | null;
}

const SECONDS = 1000;
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const DELIVERY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const WORK_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60];
const ADAPTER_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The engine's observations as Prometheus metrics (prom-client). Pass `observer` to
 * `createEngine`, call `attach(engine)` for the due-work gauges, and serve `scrape()` on
 * `GET /metrics`. prom-client stays out of the core: this adapter is the only file that uses it.
 *
 * ```ts
 * const metrics = createPrometheusMetrics();
 * const engine = await createEngine({ storage, observer: metrics.observer });
 * metrics.attach(engine);
 * app.get("/metrics", async () => metrics.scrape());
 * ```
 */
export class PrometheusMetrics {
  readonly registry: Registry;
  readonly observer: EngineObserver;
  private source: DueWorkSource | null = null;
  private snapshot: Promise<DueWorkKindStats[] | null> | null = null;

  constructor(options: PrometheusMetricsOptions = {}) {
    const registry = options.registry ?? new Registry();
    const p = options.prefix ?? "payrail_";
    this.registry = registry;
    const registers = [registry];
    const byEndpoint = options.endpointLabels ?? false;
    const endpointLabel = (endpoint: string) => (byEndpoint ? { endpoint } : {});

    const requests = new Counter({
      name: `${p}http_requests_total`,
      help: "HTTP requests answered by the /v1 API, by method, route template and status",
      labelNames: ["method", "route", "status"] as const,
      registers,
    });
    const requestSeconds = new Histogram({
      name: `${p}http_request_duration_seconds`,
      help: "Time to answer an HTTP request of the /v1 API",
      labelNames: ["method", "route", "status"] as const,
      buckets: REQUEST_BUCKETS,
      registers,
    });
    const workRuns = new Counter({
      name: `${p}work_runs_total`,
      help: "Due-work items run in this process, by kind and what the handler decided (done, settled, retry, reschedule, dead)",
      labelNames: ["kind", "outcome"] as const,
      registers,
    });
    const workSeconds = new Histogram({
      name: `${p}work_run_duration_seconds`,
      help: "Time to run one due-work item, by kind",
      labelNames: ["kind"] as const,
      buckets: WORK_BUCKETS,
      registers,
    });
    const attempts = new Counter({
      name: `${p}webhook_attempts_total`,
      help: "Webhook delivery attempts, by outcome (succeeded, http_error, network_error, gone) and, with endpointLabels, endpoint",
      labelNames: byEndpoint ? ["endpoint", "outcome"] : ["outcome"],
      registers,
    });
    const attemptSeconds = new Histogram({
      name: `${p}webhook_attempt_duration_seconds`,
      help: "Latency of webhook delivery attempts (cut at the 10 s timeout), by endpoint with endpointLabels",
      labelNames: byEndpoint ? ["endpoint"] : [],
      buckets: DELIVERY_BUCKETS,
      registers,
    });
    const postings = new Counter({
      name: `${p}ledger_postings_total`,
      help: "Balanced ledger postings committed, by asset",
      labelNames: ["asset"] as const,
      registers,
    });
    const entries = new Counter({
      name: `${p}ledger_entries_total`,
      help: "Ledger entries (lines of postings) committed, by asset",
      labelNames: ["asset"] as const,
      registers,
    });
    const events = new Counter({
      name: `${p}events_total`,
      help: "Events committed to the outbox, by type",
      labelNames: ["type"] as const,
      registers,
    });
    const adapterCalls = new Counter({
      name: `${p}adapter_calls_total`,
      help: "Calls into chain, venue and screening adapters, by port, adapter, operation and result (ok, error)",
      labelNames: ["port", "adapter", "operation", "result"] as const,
      registers,
    });
    const adapterSeconds = new Histogram({
      name: `${p}adapter_call_duration_seconds`,
      help: "Latency of calls into chain, venue and screening adapters",
      labelNames: ["port", "adapter", "operation"] as const,
      buckets: ADAPTER_BUCKETS,
      registers,
    });

    const self = this;
    new Gauge({
      name: `${p}due_work_items`,
      help: "Due-work items by kind and state: due (waiting for a worker), leased (running), scheduled (later), dead",
      labelNames: ["kind", "state"] as const,
      registers,
      async collect() {
        this.reset();
        // registered first, so collected first at each scrape: it reads storage, the next two reuse it
        for (const k of (await self.stats(true)) ?? []) {
          this.set({ kind: k.kind, state: "due" }, k.due);
          this.set({ kind: k.kind, state: "leased" }, k.leased);
          this.set({ kind: k.kind, state: "scheduled" }, k.scheduled);
          this.set({ kind: k.kind, state: "dead" }, k.dead);
        }
      },
    });
    new Gauge({
      name: `${p}due_work_oldest_age_seconds`,
      help: "How long the oldest due item of each kind has waited for a worker (0 when none waits)",
      labelNames: ["kind"] as const,
      registers,
      async collect() {
        this.reset();
        const now = self.source?.clock.now() ?? 0;
        for (const k of (await self.stats()) ?? []) {
          this.set({ kind: k.kind }, k.oldestDueAt === null ? 0 : Math.max(0, now - k.oldestDueAt) / SECONDS);
        }
      },
    });
    new Gauge({
      name: `${p}due_work_stats_up`,
      help: "1 when the last scrape could read the due-work counts from storage, 0 when it could not",
      registers,
      async collect() {
        this.set((await self.stats()) === null ? 0 : 1);
      },
    });

    // after the due-work gauges: they read the same snapshot of the scrape
    webhookBacklogMetrics(
      registry,
      p,
      () => self.stats(),
      () => self.source?.clock.now() ?? 0,
    );
    const domain = domainMetrics(registry, p);

    new Gauge({
      name: `${p}storage_up`,
      help: "0 while this process's storage sessions fail as unavailable (a restart, a failover, a full disk) and none succeeded since, 1 otherwise",
      registers,
      collect() {
        this.set(self.source?.storageFailure?.() ? 0 : 1);
      },
    });

    if (options.processMetrics) collectDefaultMetrics({ register: registry });

    this.observer = {
      requestCompleted(o) {
        const labels = { method: o.method, route: o.route, status: String(o.status) };
        requests.inc(labels);
        requestSeconds.observe(labels, o.durationMs / SECONDS);
      },
      workCompleted(o) {
        workRuns.inc({ kind: o.kind, outcome: o.outcome });
        workSeconds.observe({ kind: o.kind }, o.durationMs / SECONDS);
      },
      deliveryAttempted(o) {
        attempts.inc({ ...endpointLabel(o.endpoint), outcome: o.outcome });
        attemptSeconds.observe(endpointLabel(o.endpoint), o.latencyMs / SECONDS);
      },
      ledgerPosted(o) {
        postings.inc({ asset: o.asset }, o.postings);
        entries.inc({ asset: o.asset }, o.entries);
      },
      eventsEmitted(o) {
        events.inc({ type: o.type }, o.count);
      },
      adapterCalled(o) {
        adapterCalls.inc({ port: o.port, adapter: o.adapter, operation: o.operation, result: o.failed ? "error" : "ok" });
        adapterSeconds.observe({ port: o.port, adapter: o.adapter, operation: o.operation }, o.durationMs / SECONDS);
      },
      domainObserved: domain,
    };
  }

  /** Reads the due-work gauges from this engine at each scrape. */
  attach(source: DueWorkSource): void {
    this.source = source;
  }

  /** The text exposition format, with its content type: what `GET /metrics` answers. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** A `Response` for `GET /metrics` (web-standard, for Hono or any fetch handler). */
  async response(): Promise<Response> {
    const { contentType, body } = await this.scrape();
    return new Response(body, { headers: { "content-type": contentType } });
  }

  /**
   * The due-work counts of this scrape: read from storage when `fresh`, else the last read (one
   * read per scrape, shared by the three due-work gauges). Null when storage could not be read.
   */
  private stats(fresh = false): Promise<DueWorkKindStats[] | null> {
    const source = this.source;
    if (!source) return Promise.resolve([]);
    if (fresh || !this.snapshot) this.snapshot = source.dueWorkStats().catch(() => null);
    return this.snapshot;
  }
}

export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  return new PrometheusMetrics(options);
}

import type { Hono } from "hono";
import type { Engine } from "../../src/engine/engine";

export interface HealthOptions {
  /**
   * True once the host has begun shutting down: `/readyz` answers 503 `draining` at once, so a
   * load balancer stops sending requests while the ones in flight finish.
   */
  draining?: () => boolean;
}

/** Something that answers `GET /metrics`, such as `createPrometheusMetrics()`. */
export interface MetricsSource {
  response(): Promise<Response>;
}

/**
 * The operator routes, without an API key and outside `/v1`: `GET /healthz` (the process
 * answers), `GET /readyz` (storage reachable, schema migrated, workers running; 503 otherwise,
 * or while draining) and, with a metrics source, `GET /metrics`. Mounted before the `/v1`
 * middleware, so they carry no `Request-Id` and are not counted as API requests.
 */
export function mountOperatorRoutes(app: Hono<any>, engine: Engine, health: HealthOptions | null, metrics: MetricsSource | null): void {
  if (health) {
    app.get("/healthz", (c) => c.json({ status: "ok" }));
    app.get("/readyz", async (c) => {
      const readiness = await engine.readiness();
      if (health.draining?.()) return c.json({ status: "draining", checks: readiness.checks }, 503);
      return c.json({ status: readiness.ready ? "ready" : "not_ready", checks: readiness.checks }, readiness.ready ? 200 : 503);
    });
  }
  if (metrics) app.get("/metrics", () => metrics.response());
}

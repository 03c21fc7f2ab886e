import { createHash, timingSafeEqual } from "node:crypto";
import type { Hono } from "hono";
import type { Engine } from "../../src/engine/engine";
import { ApiError } from "../../src/errors";

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
 * or while draining) and, with a metrics source, `GET /metrics`, behind `Authorization: Bearer
 * <metricsToken>` when one is given (401 `api_key_missing` / `api_key_invalid` in the error
 * shape otherwise). Mounted before the `/v1` middleware, so their answers carry no `Request-Id`
 * (a refusal does) and are not counted as API requests.
 */
export function mountOperatorRoutes(
  app: Hono<any>,
  engine: Engine,
  health: HealthOptions | null,
  metrics: MetricsSource | null,
  metricsToken: string | null = null,
): void {
  if (health) {
    app.get("/healthz", (c) => c.json({ status: "ok" }));
    app.get("/readyz", async (c) => {
      const readiness = await engine.readiness();
      if (health.draining?.()) return c.json({ status: "draining", checks: readiness.checks }, 503);
      return c.json({ status: readiness.ready ? "ready" : "not_ready", checks: readiness.checks }, readiness.ready ? 200 : 503);
    });
  }
  if (!metrics) return;
  const expected = metricsToken === null ? null : digest(metricsToken);
  app.get("/metrics", (c) => {
    if (expected) {
      const sent = /^Bearer (.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
      const refusal =
        sent === undefined
          ? new ApiError("api_key_missing", "GET /metrics needs the metrics token: send Authorization: Bearer <token>")
          : timingSafeEqual(digest(sent), expected)
            ? null
            : new ApiError("api_key_invalid", "The metrics token is not valid");
      if (refusal) {
        const requestId = engine.newRequestId();
        return c.json(refusal.toBody(requestId), 401, { "Request-Id": requestId, "WWW-Authenticate": "Bearer" });
      }
    }
    return metrics.response();
  });
}

/** Compared as digests: equal lengths whatever was sent, and in constant time. */
function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

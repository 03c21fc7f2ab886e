import { Hono } from "hono";
import { bindRoute, type EngineRoute, type RouteDefinition } from "../../src/engine/route";
import {
  apiVersion,
  authenticate,
  authorize,
  download,
  handle,
  idempotency,
  limitBody,
  limitHeaders,
  notFound,
  observeRequest,
  parseRequest,
  rateLimit,
  requestId,
  thrownResponse,
  type HttpEngine,
  type HttpEnv,
  type HttpMiddleware,
} from "./middleware";
import { buildOpenApi } from "./openapi";
import { traceRequest } from "./tracing";
import { mountOperatorRoutes, type HealthOptions, type MetricsSource } from "./health";
import type { RequestLog } from "./request-log";

export interface HttpOptions<E extends HttpEngine = HttpEngine> {
  /** Extra routes a host mounts next to the engine's; their handlers get the engine as `api`. */
  routes?: RouteDefinition<E>[];
  /** Called with every 5xx cause, for the host's logs. */
  onInternalError?: (error: unknown, requestId: string) => void;
  /**
   * The middleware each route runs before its handler, in order. Default `defaultRouteStack`:
   * authenticate, the API version, authorize, parse the request, idempotency, rate limit. A host may reorder them
   * or put its own between them (all are exported from `payrail/http`).
   */
  routeStack?: (engine: HttpEngine, route: EngineRoute) => HttpMiddleware[];
  /** Serve `GET /healthz` and `GET /readyz` without an API key (default: not served). */
  health?: HealthOptions | boolean;
  /** Serve `GET /metrics` from this source without an API key, e.g. `createPrometheusMetrics()`. */
  metrics?: MetricsSource;
  /** `GET /metrics` then needs `Authorization: Bearer <metricsToken>` (default: open to whoever reaches it). */
  metricsToken?: string;
  /** Record the account's requests in this log and serve it at `GET /v1/request_logs` (`payrail logs tail`). */
  requestLog?: RequestLog;
}

/** The middleware of a route, in the order the binding runs them by default. */
export function defaultRouteStack(engine: HttpEngine, route: EngineRoute): HttpMiddleware[] {
  return [authenticate(engine), apiVersion(), authorize(engine, route), parseRequest(route), idempotency(engine, route), rateLimit(engine, route)];
}

/**
 * The /v1 REST binding on web-standard Request/Response (Hono). Every response carries
 * `Request-Id`; every error has the shape of docs/decisions.md §2; every POST honours
 * `Idempotency-Key`. Mount `app.fetch` in any server (Node, Bun, Deno, workers).
 */
export function createHttpApp<E extends HttpEngine>(engine: E, options: HttpOptions<E> = {}): Hono<HttpEnv> {
  const extra = [...(options.routes ?? []), ...(options.requestLog ? [options.requestLog.route() as RouteDefinition<E>] : [])];
  const routes = [...engine.routes, ...extra.map((route) => bindRoute(route, engine))];
  const stack = options.routeStack ?? defaultRouteStack;
  const app = new Hono<HttpEnv>();
  const openapi = buildOpenApi(routes, engine.downloads, engine.catalogue, engine.assets);

  // operator routes first: they answer before the /v1 middleware (no key, no request id, not counted)
  mountOperatorRoutes(app, engine, options.health === true ? {} : options.health || null, options.metrics ?? null, options.metricsToken ?? null);
  app.use("*", requestId(engine), traceRequest(engine), observeRequest(engine), limitHeaders(), limitBody());
  if (options.requestLog) app.use("/v1/*", options.requestLog.middleware());
  app.get("/v1/openapi.json", (c) => {
    c.set("route", "/v1/openapi.json");
    return c.json(openapi);
  });
  for (const route of engine.downloads) app.get(route.path, download(route, options.onInternalError));
  for (const route of routes) {
    const tag: HttpMiddleware = (c, next) => {
      c.set("route", route.path);
      return next();
    };
    const handlers: HttpMiddleware[] = [tag, ...stack(engine, route), handle(route, options.onInternalError)];
    app.on(route.method.toUpperCase(), [route.path], ...(handlers as [HttpMiddleware]));
  }
  app.notFound(notFound);
  // what middleware before the handler throws (authentication, idempotency, rate limits reach storage too)
  app.onError((e, c) => thrownResponse(c, e, options.onInternalError));
  return app;
}

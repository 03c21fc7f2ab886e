/**
 * `payrail/http`: the /v1 REST binding on Hono (an optional peer dependency used only here).
 * `createHttpApp(engine)` mounts every route of the engine with the default middleware; the
 * middleware are exported so a host can assemble its own order (`routeStack`).
 */
export { createHttpApp, defaultRouteStack, type HttpOptions } from "./app";
export { RequestLog, type RequestLogEntry } from "./request-log";
export {
  MAX_BODY_BYTES,
  MAX_HEADER_BYTES,
  limitHeaders,
  apiVersion,
  authenticate,
  authorize,
  download,
  errorResponse,
  handle,
  idempotency,
  limitBody,
  notFound,
  observeRequest,
  parseRequest,
  rateLimit,
  requestId,
  respond,
  thrownResponse,
  STORAGE_RETRY_AFTER_SECONDS,
  type HttpContext,
  type HttpEnv,
  type HttpMiddleware,
} from "./middleware";
export { buildOpenApi } from "./openapi";
export { traceRequest } from "./tracing";
export { answerClientErrors, createNodeServer, DEFAULT_SERVER_LIMITS, serverLimits, type NodeServerOptions, type ServerLimits } from "./node-server";
export type { DownloadFile, DownloadRouteDefinition, RouteDefinition, RouteInput } from "../../src/engine/route";
export { mountOperatorRoutes, type HealthOptions, type MetricsSource } from "./health";

export { createHttpApp, MAX_BODY_BYTES, type HttpOptions } from "./app";
export { buildOpenApi } from "./openapi";
export { ROUTES } from "./routes";
export type { RouteDefinition, RouteInput } from "./route";

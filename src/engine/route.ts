import type { Result } from "neverthrow";
import type { ApiError } from "../errors";
import type { RequestContext } from "./context";
import type { RouteScope } from "./scopes";
import type { RateLimit } from "./rate-limits";
import type { ObjectSchema } from "../validation/schema";
import type { ErrorCode } from "../errors";
import type { NamedSchema } from "../api/response-schema";

/**
 * What a route handler receives: who is asking, and the raw inputs. The query and body are
 * untyped JSON as the client sent it: the service the handler calls validates them with the
 * same schemas its typed inputs come from, so they are passed on as they are.
 */
export interface RouteInput<Api = unknown> {
  /** The host API of the route's module (`ModuleParts.api`). */
  api: Api;
  ctx: RequestContext;
  /** Path parameters, e.g. `{ id }`. */
  params: Record<string, string>;
  /** Query parameters; `name[]` keys become arrays under `name`. */
  query: any;
  /** The parsed JSON body (`{}` when empty). */
  body: any;
  /** Scheme, host and port the client reached the API at (`https://api.example.com`), for links the engine signs. */
  origin: string;
}

/**
 * One route of the /v1 binding. The table of routes drives both the Hono app and the OpenAPI
 * document, with the request schemas the services validate with.
 */
export interface RouteDefinition<Api = unknown> {
  method: "get" | "post" | "delete";
  /** Hono path syntax, e.g. `/v1/events/:id`. */
  path: string;
  summary: string;
  /** What the operation does, for the document (Markdown); the summary when absent. */
  description?: string;
  /** OpenAPI tag (one of its module's `tags`). */
  tag: string;
  /** The scope an API key needs (`<resource>:read` or `:write`), or `full_access` (a key without scopes). */
  scope: RouteScope;
  /** Schema of the JSON body, for the document (the service validates with the same one). */
  body?: ObjectSchema<any>;
  /** Schema of the query string, likewise. */
  query?: ObjectSchema<any>;
  /** docs/decisions.md §3: payout, batch, swap and limit order create. */
  idempotencyRequired?: boolean;
  /** Test-helper routes answer 404 to live keys (docs/decisions.md §7). */
  testModeOnly?: boolean;
  /** Counted per API key before anything else happens; over it: 429 `rate_limited`. */
  rateLimit?: RateLimit;
  /** Requests of the route the rate limit does not count (a batch dry run: it moves nothing). */
  rateLimitExempt?: (input: Pick<RouteInput, "query" | "body">) => boolean;
  /** Status of success (default 200). */
  successStatus?: number;
  /** Schema of the object a success answers (the resource's `*-objects.ts`), for the document. */
  returns: NamedSchema<unknown>;
  /** Codes of 402 `request_failed` the route can answer, for the document. */
  failures?: readonly ErrorCode[];
  handler: (input: RouteInput<Api>) => Promise<Result<unknown, ApiError>>;
}

/** A route as the engine serves it: bound to its module's API, so a binding passes the request only. */
export interface EngineRoute extends Omit<RouteDefinition, "handler"> {
  handler: (input: Omit<RouteInput, "api">) => Promise<Result<unknown, ApiError>>;
}

/** A route bound to the API its handler is given. */
export function bindRoute<Api>(route: RouteDefinition<Api>, api: Api): EngineRoute {
  const { handler, ...rest } = route;
  return { ...rest, handler: (input) => handler({ ...input, api }) };
}

/**
 * A route that answers a file, not JSON, to whoever holds a signed link: no API key, no
 * idempotency. A failed check answers in the error shape (403 for a bad or expired link).
 */
export interface DownloadRouteDefinition<Api = unknown> {
  /** Hono path syntax; GET only. */
  path: string;
  summary: string;
  tag: string;
  handler: (input: { api: Api; path: string; query: Record<string, unknown> }) => Promise<Result<DownloadFile, ApiError>>;
}

/** A download route as the engine serves it, bound to its module's API. */
export interface EngineDownloadRoute extends Omit<DownloadRouteDefinition, "handler"> {
  handler: (input: { path: string; query: Record<string, unknown> }) => Promise<Result<DownloadFile, ApiError>>;
}

/** A download route bound to the API its handler is given. */
export function bindDownload<Api>(route: DownloadRouteDefinition<Api>, api: Api): EngineDownloadRoute {
  const { handler, ...rest } = route;
  return { ...rest, handler: (input) => handler({ ...input, api }) };
}

/** A file as a download route answers it (`Content-Disposition: attachment`). */
export interface DownloadFile {
  body: ReadableStream<Uint8Array>;
  contentType: string;
  size: number;
  filename: string;
}

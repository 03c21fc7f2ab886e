import type { Result } from "neverthrow";
import type { Engine } from "../../src/engine";
import type { ApiError } from "../../src/errors";
import type { RequestContext } from "../../src/services/context";
import type { Scope } from "../../src/services/auth";
import type { RateLimit } from "../../src/services/rate-limits";
import type { ObjectSchema } from "../../src/validation/schema";

/** What a route handler receives: who is asking, and the raw inputs (services validate them). */
export interface RouteInput {
  engine: Engine;
  ctx: RequestContext;
  /** Path parameters, e.g. `{ id }`. */
  params: Record<string, string>;
  /** Query parameters; `name[]` keys become arrays under `name`. */
  query: Record<string, unknown>;
  /** The parsed JSON body (`{}` when empty). */
  body: unknown;
}

/**
 * One route of the /v1 binding. The table of routes drives both the Hono app and the OpenAPI
 * document, with the request schemas the services validate with.
 */
export interface RouteDefinition {
  method: "get" | "post" | "delete";
  /** Hono path syntax, e.g. `/v1/events/:id`. */
  path: string;
  summary: string;
  /** OpenAPI tag. */
  tag: string;
  /** The scope an API key needs (`<resource>:read` or `:write`). */
  scope: Scope;
  /** Schema of the JSON body, for the document (the service validates with the same one). */
  body?: ObjectSchema<any>;
  /** Schema of the query string, likewise. */
  query?: ObjectSchema<any>;
  /** DECISIONS.md §3: payout, batch, swap and limit order create. */
  idempotencyRequired?: boolean;
  /** Test-helper routes answer 404 to live keys (DECISIONS.md §7). */
  testModeOnly?: boolean;
  /** Counted per API key before anything else happens; over it: 429 `rate_limited`. */
  rateLimit?: RateLimit;
  /** Status of success (default 200). */
  successStatus?: number;
  /** Name of the object a success returns, for the document. */
  returns: string;
  handler: (input: RouteInput) => Promise<Result<unknown, ApiError>>;
}

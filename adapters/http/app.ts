import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Engine } from "../../src/engine";
import { ApiError } from "../../src/errors";
import type { RequestContext } from "../../src/services/context";
import { checkIdempotencyKey, isStoredStatus, requestFingerprint } from "../../src/services/idempotency";
import { buildOpenApi } from "./openapi";
import type { RouteDefinition } from "./route";
import { ROUTES } from "./routes";

/** DECISIONS.md §3: 32 MB request bodies. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface HttpOptions {
  /** Extra routes a host mounts next to the built-in ones. */
  routes?: RouteDefinition[];
  /** Called with every 5xx cause, for the host's logs. */
  onInternalError?: (error: unknown, requestId: string) => void;
}

type Env = { Variables: { requestId: string } };

/**
 * The /v1 REST binding on web-standard Request/Response (Hono). Every response carries
 * `Request-Id`; every error has the shape of DECISIONS.md §2; every POST honours
 * `Idempotency-Key`. Mount `app.fetch` in any server (Node, Bun, Deno, workers).
 */
export function createHttpApp(engine: Engine, options: HttpOptions = {}): Hono<Env> {
  const routes = [...ROUTES, ...(options.routes ?? [])];
  const app = new Hono<Env>();
  const openapi = buildOpenApi(routes);

  app.use("*", async (c, next) => {
    const requestId = engine.deps.ids.next("req");
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("Request-Id", requestId);
  });

  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        errorResponse(c, new ApiError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes`)),
    }),
  );

  app.get("/v1/openapi.json", (c) => c.json(openapi));

  for (const route of routes) {
    app.on(route.method.toUpperCase(), route.path, (c) => handle(engine, route, c, options));
  }

  app.notFound((c) =>
    errorResponse(c, new ApiError("resource_missing", `Unrecognized request URL (${c.req.method} ${c.req.path})`)),
  );

  app.onError((e, c) => {
    options.onInternalError?.(e, c.get("requestId"));
    return errorResponse(c, new ApiError("internal_error", "An internal error occurred; it has been logged"));
  });

  return app;
}

function errorResponse(c: Context<Env>, error: ApiError): Response {
  const headers: Record<string, string> = {};
  if (error.retryAfter !== undefined) headers["Retry-After"] = String(error.retryAfter);
  return c.json(error.toBody(c.get("requestId") ?? null), error.status as 400, headers);
}

async function handle(engine: Engine, route: RouteDefinition, c: Context<Env>, options: HttpOptions): Promise<Response> {
  const requestId = c.get("requestId");
  const principal = await engine.auth.authenticate(c.req.header("authorization"));
  if (principal.isErr()) return errorResponse(c, principal.error);
  if (route.testModeOnly && principal.value.livemode) {
    return errorResponse(c, new ApiError("resource_missing", `Unrecognized request URL (${c.req.method} ${c.req.path})`));
  }
  const allowed = engine.auth.authorize(principal.value, route.scope);
  if (allowed.isErr()) return errorResponse(c, allowed.error);
  const query = queryObject(c);
  if (!route.query) {
    const unknown = Object.keys(query)[0];
    if (unknown !== undefined) {
      return errorResponse(c, new ApiError("parameter_invalid", `Received unknown parameter: ${unknown}`, { param: unknown }));
    }
  }

  let body: unknown = {};
  let rawBody = "";
  if (route.method === "post") {
    rawBody = await c.req.text();
    if (rawBody.trim() !== "") {
      try {
        body = JSON.parse(rawBody);
      } catch {
        return errorResponse(c, new ApiError("parameter_invalid", "The request body is not valid JSON", { param: "body" }));
      }
    }
  }

  const idempotencyKey = c.req.header("idempotency-key") ?? null;
  const ctx: RequestContext = {
    accountId: principal.value.accountId,
    livemode: principal.value.livemode,
    requestId,
    idempotencyKey,
  };
  if (route.method === "post") {
    if (idempotencyKey === null && route.idempotencyRequired) {
      return errorResponse(
        c,
        new ApiError("parameter_missing", "This request requires an Idempotency-Key header", { param: "Idempotency-Key" }),
      );
    }
    if (idempotencyKey !== null) {
      const checked = checkIdempotencyKey(idempotencyKey);
      if (checked.isErr()) return errorResponse(c, checked.error);
      const url = new URL(c.req.url);
      const begun = await engine.idempotency.begin(
        ctx.accountId,
        idempotencyKey,
        requestFingerprint(c.req.method, url.pathname + url.search, rawBody),
      );
      if (begun.isErr()) return errorResponse(c, begun.error);
      if (begun.value.kind === "replay") {
        const { status, body: stored } = begun.value.response;
        return c.json(stored as object, status as 200, { "Idempotent-Replayed": "true" });
      }
      ctx.idempotency = begun.value.claim;
    }
  }
  // Counted only for requests that will run: a replay answers from the stored response.
  if (route.rateLimit) {
    const limited = await engine.rateLimits.hit(principal.value.keyHash, route.rateLimit);
    if (limited.isErr()) {
      if (ctx.idempotency) await engine.idempotency.release(ctx.idempotency);
      return errorResponse(c, limited.error);
    }
  }

  let status: number;
  let responseBody: unknown;
  try {
    const result = await route.handler({ engine, ctx, params: c.req.param() as Record<string, string>, query, body });
    if (result.isOk()) {
      status = route.successStatus ?? 200;
      responseBody = result.value;
    } else {
      status = result.error.status;
      responseBody = result.error.toBody(requestId);
      if (result.error.retryAfter !== undefined) c.header("Retry-After", String(result.error.retryAfter));
    }
  } catch (e) {
    options.onInternalError?.(e, requestId);
    status = 500;
    responseBody = new ApiError("internal_error", "An internal error occurred; it has been logged").toBody(requestId);
  }

  if (ctx.idempotency) {
    // The command saved a success with its effect already; this saves what it could not (errors
    // after a rollback, handlers without a command) or gives the key back.
    if (isStoredStatus(status)) await engine.idempotency.saveIfHeld(ctx.idempotency, { status, body: responseBody });
    else await engine.idempotency.release(ctx.idempotency);
  }
  return c.json(responseBody as object, status as 200);
}

/** The query string as an object; repeated `name[]` keys become an array under `name`. */
function queryObject(c: Context<Env>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(c.req.queries())) {
    if (key.endsWith("[]")) out[key.slice(0, -2)] = values;
    else out[key] = values[values.length - 1];
  }
  return out;
}

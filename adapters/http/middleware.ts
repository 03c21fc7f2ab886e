import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { RequestContext } from "../../src/engine/context";
import type { Engine } from "../../src/engine/engine";
import type { AccountsApi } from "../../src/resources/accounts/routes";
import { checkIdempotencyKey, requestFingerprint } from "../../src/engine/idempotency";
import type { EngineDownloadRoute, EngineRoute } from "../../src/engine/route";
import { ApiError, causeOf } from "../../src/errors";
import { StorageUnavailableError } from "../../src/ports/storage/unavailable";
import { boundOrigin, bodyCutOff } from "./connection";
import type { Principal } from "../../src/resources/accounts/auth";
import { badTextReason } from "../../src/validation/schema";
import { parseApiVersion, renderForVersion, upgradeRequest, VERSION_HEADER } from "../../src/versions/api-versions";

/** An engine the binding can serve: any modules, the accounts' among them (keys authenticate through it). */
export type HttpEngine = Engine & Pick<AccountsApi, "auth">;

/** docs/decisions.md §3: 32 MB request bodies. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** What the middleware of one request leave for the ones after them. */
export type HttpEnv = {
  Variables: {
    requestId: string;
    /** The client's well-formed `X-Request-Id`, else the request id (see `requestId`). */
    correlationId: string;
    principal: Principal;
    /** Who is asking, as the services take it (set by `authenticate`, completed by `idempotency`). */
    ctx: RequestContext;
    /** The query string as an object; repeated `name[]` keys become an array under `name`. */
    query: Record<string, unknown>;
    /** The request body as text, and parsed (`{}` when empty). */
    rawBody: string;
    body: unknown;
    /** Status and body of the answer, for `idempotency` to save after the handler ran. */
    outcome: { status: number; body: unknown };
    /** The template of the route that matched (`/v1/payouts/:id`), for metrics and logs. */
    route: string;
    /** The API version the request is answered in (`Payrail-Version`, or the account's default; set by `apiVersion`). */
    apiVersion: string;
  };
};

export type HttpContext = Context<HttpEnv>;
export type HttpMiddleware = MiddlewareHandler<HttpEnv>;

/**
 * Answers `body` (the newest shape) with `status` in the request's API version, remembering
 * both, as the newest shape, for the idempotency middleware.
 */
export function respond(c: HttpContext, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  c.set("outcome", { status, body });
  return c.json(rendered(c, body) as object, status as 200, headers);
}

/** A body of the newest shape as the request's API version shows it (as is before `apiVersion` ran). */
function rendered(c: HttpContext, body: unknown): unknown {
  const version = c.get("apiVersion");
  return version ? renderForVersion(body, version) : body;
}

/** Answers an error of the catalogue in its shape (docs/decisions.md §2), with `Retry-After` when it has one. */
export function errorResponse(c: HttpContext, error: ApiError): Response {
  const headers: Record<string, string> = {};
  if (error.retryAfter !== undefined) headers["Retry-After"] = String(error.retryAfter);
  return respond(c, error.status, error.toBody(c.get("requestId") ?? null), headers);
}

function unrecognized(c: HttpContext): Response {
  return errorResponse(c, new ApiError("resource_missing", `Unrecognized request URL (${c.req.method} ${c.req.path})`));
}

/**
 * A client's `X-Request-Id` kept as the request's correlation id: 1 to 200 characters of
 * `A-Z a-z 0-9 . _ : -` (UUIDs, ULIDs, a gateway's ids). Anything else is ignored, so a log line
 * never carries what a client could use to forge or break one.
 */
export const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/** Whether `value` is kept as a request's correlation id (`CORRELATION_ID`). */
export function isCorrelationId(value: string | undefined): value is string {
  return value !== undefined && CORRELATION_ID.test(value);
}

/**
 * Mints the request's `req_…` id and sets it as `Request-Id` on whatever goes back (docs/decisions.md
 * §2: the id errors, events and due work carry). The client's `X-Request-Id`, when well-formed
 * (`isCorrelationId`), is the request's correlation id, else the request id is: it goes back as
 * `X-Request-Id` and is on the request's log line (`correlation_id`).
 */
export function requestId(engine: Engine): HttpMiddleware {
  return async (c, next) => {
    const id = engine.newRequestId();
    const sent = c.req.header("x-request-id");
    const correlationId = isCorrelationId(sent) ? sent : id;
    c.set("requestId", id);
    c.set("correlationId", correlationId);
    await next();
    c.res.headers.set("Request-Id", id);
    c.res.headers.set("X-Request-Id", correlationId);
  };
}

/**
 * Reports every answered request to the engine's observer (`EngineObserver.requestCompleted`):
 * method, route template, status, duration, request and correlation ids, and once the key was
 * accepted the account, the key's id and the `Idempotency-Key`. Runs after `requestId`.
 */
export function observeRequest(engine: Engine): HttpMiddleware {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const ctx = c.get("ctx") as RequestContext | undefined;
    const principal = c.get("principal") as Principal | undefined;
    engine.observer.requestCompleted({
      method: c.req.method,
      route: c.get("route") ?? "unmatched",
      status: c.res.status,
      durationMs: performance.now() - started,
      requestId: c.get("requestId"),
      correlationId: c.get("correlationId") ?? c.get("requestId"),
      accountId: principal?.accountId ?? null,
      keyId: principal?.keyId ?? null,
      idempotencyKey: ctx?.idempotencyKey ?? null,
    });
  };
}

/** Node's default `maxHeaderSize`: the request line and headers together. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Refuses a request line and headers over 16 KB with 431 `headers_too_large`, whatever server
 * the binding is mounted in (Node's own parser refuses them before the app on `node:http`:
 * `answerClientErrors` answers those alike).
 */
export function limitHeaders(maxBytes = MAX_HEADER_BYTES): HttpMiddleware {
  return async (c, next) => {
    let size = c.req.method.length + c.req.url.length + 11;
    c.req.raw.headers.forEach((value, name) => {
      size += name.length + value.length + 4;
    });
    if (size > maxBytes) {
      return errorResponse(c, new ApiError("headers_too_large", `The request line and headers are limited to ${maxBytes} bytes`));
    }
    await next();
  };
}

/**
 * Refuses bodies over 32 MB with 413 `payload_too_large`. A chunked body is read here to count
 * it: one the client cuts off is refused like one read later (`bodyCutOff`).
 */
export function limitBody(maxBytes = MAX_BODY_BYTES): HttpMiddleware {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => errorResponse(c as HttpContext, new ApiError("payload_too_large", `Request bodies are limited to ${maxBytes} bytes`)),
  }) as HttpMiddleware;
  return async (c, next) => {
    let reached = false;
    try {
      return await limit(c, () => {
        reached = true;
        return next();
      });
    } catch (e) {
      // what the middleware after this one throw is theirs (Hono answers it); before them, only the body was read
      if (reached) throw e;
      return errorResponse(c, bodyCutOff(c));
    }
  };
}

/** Bearer-key authentication: sets `principal` and the request's `ctx`, or answers 401. */
export function authenticate(engine: HttpEngine): HttpMiddleware {
  return async (c, next) => {
    const principal = await engine.auth.authenticate(c.req.header("authorization"));
    if (principal.isErr()) return errorResponse(c, principal.error);
    c.set("principal", principal.value);
    c.set("ctx", {
      accountId: principal.value.accountId,
      livemode: principal.value.livemode,
      requestId: c.get("requestId"),
      idempotencyKey: c.req.header("idempotency-key") ?? null,
      actor: { type: "api_key", apiKey: principal.value.keyId },
    });
    await next();
  };
}

/**
 * The API version of the request (docs/versions.md): `Payrail-Version` when sent (an unknown one
 * is 400 `parameter_invalid`, param `Payrail-Version`), else the account's default. Answers
 * are rendered in it (`respond`) and state it in `Payrail-Version`. Runs after `authenticate`.
 */
export function apiVersion(): HttpMiddleware {
  return async (c, next) => {
    const asked = c.req.header(VERSION_HEADER);
    let version = c.get("principal").apiVersion;
    if (asked !== undefined) {
      const parsed = parseApiVersion(asked);
      if (parsed.isErr()) return errorResponse(c, parsed.error);
      version = parsed.value;
    }
    c.set("apiVersion", version);
    await next();
    c.res.headers.set(VERSION_HEADER, version);
  };
}

/** The route's scope (403 without it); test-mode routes are unknown (404) to live keys. */
export function authorize(engine: HttpEngine, route: EngineRoute): HttpMiddleware {
  return async (c, next) => {
    const principal = c.get("principal");
    if (route.testModeOnly && principal.livemode) return unrecognized(c);
    const allowed = engine.auth.authorize(principal, route.scope);
    if (allowed.isErr()) return errorResponse(c, allowed.error);
    await next();
  };
}

/**
 * Reads the query (unknown parameters are refused on routes that take none; the service refuses
 * the rest by its schema) and the JSON body of a POST (400 `parameter_invalid`, param `body`,
 * when it is not JSON; 415 `content_type_unsupported` when a body comes without a JSON content
 * type; an empty body is no parameters, whatever its content type, so bodiless POSTs such as
 * approve need none). Text storage cannot hold (NUL, unpaired surrogates) is refused anywhere
 * in the path, query or body with 400 `parameter_invalid` naming where, before any effect, and so
 * is a body whose bytes are not UTF-8 (param `body`): nothing is replaced with U+FFFD.
 */
export function parseRequest(route: EngineRoute): HttpMiddleware {
  return async (c, next) => {
    for (const [name, value] of Object.entries(c.req.param() as Record<string, string>)) {
      const bad = badTextIn(value, name);
      if (bad) return errorResponse(c, bad);
    }
    const query = queryObject(c);
    const badQuery = badTextIn(query, "");
    if (badQuery) return errorResponse(c, badQuery);
    if (!route.query) {
      const unknown = Object.keys(query)[0];
      if (unknown !== undefined) {
        return errorResponse(c, new ApiError("parameter_invalid", `Received unknown parameter: ${unknown}`, { param: unknown }));
      }
    }
    c.set("query", query);
    let body: unknown = {};
    let rawBody = "";
    if (route.method === "post") {
      let bytes: ArrayBuffer;
      try {
        bytes = await c.req.arrayBuffer();
      } catch {
        return errorResponse(c, bodyCutOff(c));
      }
      const text = utf8Text(new Uint8Array(bytes));
      if (text === null) {
        return errorResponse(c, new ApiError("parameter_invalid", "The request body is not valid UTF-8", { param: "body" }));
      }
      rawBody = text;
      if (rawBody.trim() !== "") {
        if (!isJsonMediaType(c.req.header("content-type"))) {
          return errorResponse(c, new ApiError("content_type_unsupported", "Request bodies must be JSON sent with Content-Type: application/json"));
        }
        try {
          body = JSON.parse(rawBody);
        } catch {
          return errorResponse(c, new ApiError("parameter_invalid", "The request body is not valid JSON", { param: "body" }));
        }
        const bad = badTextIn(body, "");
        if (bad) return errorResponse(c, bad);
      }
    }
    c.set("rawBody", rawBody);
    c.set("body", body);
    await next();
  };
}

/**
 * `Idempotency-Key` on POST (docs/decisions.md §3): required where the route says so; a completed key
 * with the same request replays its stored answer (`Idempotent-Replayed: true`); otherwise the
 * request holds the key while it runs. Afterwards a completed answer (2xx, 402, or 5xx after the
 * request committed something: `completesKey`) is saved (the command saved a success with its
 * effect already) and any other gives the key back, so a failure where nothing committed (503
 * `storage_unavailable`) runs again under the same key.
 */
export function idempotency(engine: Engine, route: EngineRoute): HttpMiddleware {
  return async (c, next) => {
    if (route.method !== "post") return next();
    const ctx = c.get("ctx");
    const key = ctx.idempotencyKey;
    if (key === null) {
      if (route.idempotencyRequired) {
        return errorResponse(c, new ApiError("parameter_missing", "This request requires an Idempotency-Key header", { param: "Idempotency-Key" }));
      }
      return next();
    }
    const checked = checkIdempotencyKey(key);
    if (checked.isErr()) return errorResponse(c, checked.error);
    const url = new URL(c.req.url);
    // a body that is not blank was parsed as JSON already (`parseRequest`): the fingerprint takes it as parsed
    const raw = c.get("rawBody");
    const fingerprint = await requestFingerprint(c.req.method, url.pathname + url.search, raw, raw.trim() === "" ? undefined : { value: c.get("body") });
    const begun = await engine.idempotency.begin(ctx.accountId, key, fingerprint);
    if (begun.isErr()) return errorResponse(c, begun.error);
    if (begun.value.kind === "replay") {
      const { status, body } = begun.value.response;
      return c.json(rendered(c, body) as object, status as 200, { "Idempotent-Replayed": "true" });
    }
    const claim = begun.value.claim;
    c.set("ctx", { ...ctx, idempotency: claim });
    const { committed } = await engine.idempotency.track(() => next());
    const outcome = c.get("outcome") ?? { status: c.res.status, body: null };
    await engine.idempotency.finish(claim, outcome, committed);
  };
}

/**
 * The route's rate limit per API key (429 `rate_limited` with `Retry-After` over it). It comes
 * after `idempotency`: a replay answers from the stored response and is not counted, and a
 * refusal gives the key back.
 */
export function rateLimit(engine: Engine, route: EngineRoute): HttpMiddleware {
  return async (c, next) => {
    if (!route.rateLimit || route.rateLimitExempt?.({ query: c.get("query"), body: c.get("body") })) return next();
    const limited = await engine.rateLimits.hit(c.get("principal").keyHash, route.rateLimit);
    if (limited.isErr()) return errorResponse(c, limited.error);
    await next();
  };
}

/** Runs the route's handler and answers its result; a thrown error is 500 `internal_error` (503 `storage_unavailable`: `thrownResponse`). */
export function handle(route: EngineRoute, onInternalError?: (error: unknown, requestId: string) => void): HttpMiddleware {
  return async (c) => {
    try {
      const result = await route.handler({
        ctx: c.get("ctx"),
        params: c.req.param() as Record<string, string>,
        query: c.get("query"),
        body: upgraded(c, route),
        origin: boundOrigin(c),
      });
      return result.isOk() ? respond(c, route.successStatus ?? 200, result.value) : errorResponse(c, result.error);
    } catch (e) {
      return thrownResponse(c, e, onInternalError);
    }
  };
}

/** The request's body in the newest shape: the dated changes after its version upgrade it. */
function upgraded(c: HttpContext, route: EngineRoute): unknown {
  const version = c.get("apiVersion");
  return version ? upgradeRequest(`${route.method.toUpperCase()} ${route.path}`, c.get("body"), version) : c.get("body");
}

/**
 * A file by a signed link (`DownloadRouteDefinition`): no API key, no idempotency; the handler
 * checks the link. The file streams out as an attachment; errors keep the error shape (403 for a
 * bad or expired link).
 */
export function download(route: EngineDownloadRoute, onInternalError?: (error: unknown, requestId: string) => void): HttpMiddleware {
  return async (c) => {
    try {
      const result = await route.handler({ path: c.req.path, query: queryObject(c) });
      if (result.isErr()) return errorResponse(c, result.error);
      const file = result.value;
      return new Response(file.body, {
        headers: {
          "Content-Type": file.contentType,
          "Content-Length": String(file.size),
          "Content-Disposition": `attachment; filename="${file.filename.replace(/["\\]/g, "_")}"`,
          "Cache-Control": "private, no-store",
        },
      });
    } catch (e) {
      return thrownResponse(c, e, onInternalError);
    }
  };
}

/** Seconds a client is asked to wait (`Retry-After`) while storage is unavailable. */
export const STORAGE_RETRY_AFTER_SECONDS = 1;

/**
 * The answer to an error thrown while serving a request: 503 `storage_unavailable` with
 * `Retry-After` when storage is unavailable (`StorageUnavailableError`, transient: nothing was
 * done, the client retries), 500 `internal_error` otherwise (reported to `onInternalError`).
 */
export function thrownResponse(c: HttpContext, e: unknown, onInternalError?: (error: unknown, requestId: string) => void): Response {
  const unavailable = causeOf(e, StorageUnavailableError);
  if (unavailable) {
    return errorResponse(
      c,
      new ApiError("storage_unavailable", `Storage is unavailable (${unavailable.reason}); nothing was done. Retry later with the same Idempotency-Key`, {
        retryAfter: STORAGE_RETRY_AFTER_SECONDS,
      }),
    );
  }
  onInternalError?.(e, c.get("requestId"));
  return errorResponse(c, new ApiError("internal_error", "An internal error occurred; it has been logged"));
}

/** Unknown routes: 404 `resource_missing` in the error shape. */
export function notFound(c: HttpContext): Response {
  return unrecognized(c);
}

/**
 * The query string as an object. `name[]=x` and `name[0]=x` (in index order) collect into an
 * array under `name`, and a plain `name=x` joins that array when there is one, so
 * `expand=a`, `expand[]=a` and `expand[0]=a` read alike; otherwise a repeated plain key keeps
 * its last value.
 */
function queryObject(c: HttpContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const arrays = new Map<string, { order: number; index: number; value: string }[]>();
  let order = 0;
  for (const [key, value] of new URL(c.req.url).searchParams) {
    const bracket = /^([^[\]]+)\[(\d{0,4})\]$/.exec(key);
    const name = bracket ? bracket[1]! : key;
    if (!bracket && !arrays.has(name)) {
      out[name] = value;
      continue;
    }
    const items = arrays.get(name) ?? [];
    if (!arrays.has(name) && typeof out[name] === "string") items.push({ order: order++, index: -1, value: out[name] as string });
    // [] and plain entries keep their place; [n] entries follow them, in the order of n
    items.push({ order: order++, index: bracket && bracket[2] !== "" ? Number(bracket[2]) : -1, value });
    arrays.set(name, items);
  }
  for (const [name, items] of arrays) {
    const indexed = items.filter((i) => i.index >= 0).sort((a, b) => a.index - b.index || a.order - b.order);
    const rest = items.filter((i) => i.index < 0);
    out[name] = [...rest, ...indexed].map((i) => i.value);
  }
  return out;
}

/**
 * The body's bytes as text, or null when they are not UTF-8: an overlong form (`C0 80`), an
 * encoded surrogate (`ED A0 80`), a byte UTF-8 never uses (`FF`) or a truncated sequence would
 * otherwise read as U+FFFD and be stored as if the client had sent it. A leading BOM is dropped.
 */
function utf8Text(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** `application/json` or a `+json` type, parameters (charset) allowed. */
function isJsonMediaType(header: string | undefined): boolean {
  const type = (header ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** Deeper than any request schema goes; deeper JSON is refused before anything walks it recursively. */
const MAX_JSON_DEPTH = 64;

/**
 * The first text in `value` (object keys included) storage cannot hold, as a refusal naming
 * where; or nesting deeper than `MAX_JSON_DEPTH`. Iterative: a body may nest far deeper than
 * the call stack.
 */
function badTextIn(value: unknown, root: string): ApiError | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === "string") {
      const reason = badTextReason(v);
      if (reason) return new ApiError("parameter_invalid", `${path || "The request"} ${reason}`, { param: path || "body" });
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      return new ApiError("parameter_invalid", `${path || "The request body"} is nested more than ${MAX_JSON_DEPTH} levels deep`, { param: path || "body" });
    }
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((item, i) => [`${path}[${i}]`, item]) : [];
    if (!Array.isArray(v)) {
      for (const [key, item] of Object.entries(v)) {
        const reason = badTextReason(key);
        if (reason) return new ApiError("parameter_invalid", `Parameter names ${reason}`, { param: path || "body" });
        entries.push([path ? `${path}.${key}` : key, item]);
      }
    }
    // reversed onto the stack, so the first bad text in document order is the one named
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: entries[i]![0], depth: depth + 1 });
  }
  return null;
}

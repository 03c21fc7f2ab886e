import type { Hono } from "hono";
import { createHttpApp } from "../http/app";
import { apiVersion, authorize, idempotency, parseRequest, rateLimit, type HttpEngine, type HttpEnv, type HttpMiddleware } from "../http/middleware";
import { LATEST_VERSION } from "../../src/versions/api-versions";
import type { Scope } from "../../src/engine/scopes";

/**
 * Who the host's `authorize` hook lets in: one account, and what they may do there. `scopes` are
 * the API keys' scopes (docs/decisions.md §3; none: full access); a grant of read scopes only gives a
 * console without a button. `user` names the operator in the console's header.
 */
export interface ConsoleGrant {
  account: string;
  scopes?: readonly Scope[];
  user?: string;
  /**
   * The API key (`key_…`) the operator signed in with, if any: the audit log names it as who made
   * a change (`apiKeyAuthorizer` sets it). Without it a change is the host's.
   */
  apiKey?: string;
}

/** What a console page gets from the API: the object, or the error of the catalogue (docs/decisions.md §2). */
export type ApiAnswer<T = any> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; error: { code: string; message: string; param?: string } };

/** Calls to the engine's public `/v1` API on behalf of a grant. */
export interface ConsoleApi {
  get<T = any>(path: string, query?: Record<string, string | string[] | undefined>): Promise<ApiAnswer<T>>;
  /** A POST (or DELETE) with an Idempotency-Key: a form sent twice acts once. */
  send<T = any>(method: "post" | "delete", path: string, body: unknown, idempotencyKey: string): Promise<ApiAnswer<T>>;
  /** A report file by the path and query of its signed link (served by the engine's download route, whatever origin the link names). */
  file(signedUrl: string): Promise<Response>;
}

type GrantEnv = HttpEnv & { Bindings: { grant: ConsoleGrant; livemode: boolean } };

/**
 * The console reads and acts only through the engine's `/v1` routes, in process: the same
 * validation, scopes, idempotency, versions and error shapes as any API client, with the grant
 * in place of an API key. The grant travels in the request's bindings, which only this code
 * sets: no header can forge one. The routes' rate limits count per signed-in key (or account), and
 * answers are in the newest API version, the shape the pages are written for.
 */
export function consoleApi(
  engine: HttpEngine & { accounts: { get(id: string): Promise<{ livemode: boolean } | null> } },
  onInternalError?: (error: unknown, requestId: string) => void,
): (grant: ConsoleGrant) => ConsoleApi {
  const grantAuth: HttpMiddleware = async (c, next) => {
    const { grant, livemode } = (c.env as GrantEnv["Bindings"]) ?? {};
    if (!grant) return c.json({ error: { type: "invalid_request_error", code: "api_key_missing", message: "No console grant" } }, 401);
    const keyId = grant.apiKey ?? "console";
    // counted like the API's requests, per signed-in key (or account): the console is no way around a rate limit
    const keyHash = `console:${grant.apiKey ?? grant.account}`;
    c.set("principal", { accountId: grant.account, livemode, scopes: grant.scopes ?? [], keyHash, keyId, apiVersion: LATEST_VERSION });
    c.set("ctx", {
      accountId: grant.account,
      livemode,
      requestId: c.get("requestId"),
      idempotencyKey: c.req.header("idempotency-key") ?? null,
      actor: grant.apiKey ? { type: "api_key", apiKey: grant.apiKey } : { type: "host" },
    });
    await next();
  };
  const app: Hono<HttpEnv> = createHttpApp(engine, {
    ...(onInternalError ? { onInternalError } : {}),
    routeStack: (e, route) => [grantAuth, apiVersion(), authorize(e, route), parseRequest(route), idempotency(e, route), rateLimit(e, route)],
  });
  const livemodeOf = new Map<string, boolean>();

  return (grant) => {
    const call = async (method: string, path: string, init: { query?: Record<string, string | string[] | undefined>; body?: unknown; key?: string }) => {
      let livemode = livemodeOf.get(grant.account);
      if (livemode === undefined) {
        const account = await engine.accounts.get(grant.account);
        if (!account) return { ok: false as const, status: 404, error: { code: "resource_missing", message: `No such account: ${grant.account}` } };
        livemode = account.livemode;
        livemodeOf.set(grant.account, livemode);
      }
      const url = new URL(`http://console.internal${path}`);
      for (const [k, v] of Object.entries(init.query ?? {})) {
        if (v === undefined || v === "") continue;
        for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(Array.isArray(v) ? `${k}[]` : k, one);
      }
      const headers: Record<string, string> = {};
      if (init.key) headers["idempotency-key"] = init.key;
      if (init.body !== undefined) headers["content-type"] = "application/json";
      const res = await app.request(
        url.pathname + url.search,
        { method, headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) },
        { grant, livemode },
      );
      const json = (await res.json()) as any;
      return res.ok ? { ok: true as const, status: res.status, body: json } : { ok: false as const, status: res.status, error: json.error };
    };
    return {
      get: (path, query) => call("GET", path, { ...(query ? { query } : {}) }),
      send: (method, path, body, key) => call(method.toUpperCase(), path, { body, key }),
      file: (signedUrl) => {
        // from /v1/files/ on: the link's origin (and a prefix of PAYRAIL_PUBLIC_URL) is not this app's
        const url = new URL(signedUrl);
        const at = url.pathname.indexOf("/v1/files/");
        return Promise.resolve(app.request(url.pathname.slice(Math.max(0, at)) + url.search));
      },
    };
  };
}

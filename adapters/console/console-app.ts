import { randomBytes } from "node:crypto";
import { Hono, type Context } from "hono";
import { scopesAllow } from "../../src/engine/scopes";
import type { HttpEngine } from "../http/middleware";
import { consoleApi, type ConsoleApi, type ConsoleGrant } from "./console-api";
import { html, page, type Markup, type Shell } from "./html";

/** How a host mounts the console or the portal. */
export interface ConsoleOptions {
  /**
   * The host's own login: who is asking, or null (answered 401, or sent to `loginUrl`). Called
   * on every request, with the request as it came.
   */
  authorize: (request: Request) => ConsoleGrant | null | Promise<ConsoleGrant | null>;
  /** The path the host mounts it at (default `/console`; the portal's `/portal`). Links are built from it. */
  basePath?: string;
  /** Where an unauthorized browser is sent (default: a 401 page). */
  loginUrl?: string;
  /**
   * The `WWW-Authenticate` challenge of that 401 page, for a login the browser itself asks for
   * (`apiKeyAuthorizer`'s `BASIC_CHALLENGE`).
   */
  challenge?: string;
  /** Called with every 5xx cause of the API calls the console makes, for the host's logs. */
  onInternalError?: (error: unknown, requestId: string) => void;
  /** Block explorers per chain, `{tx}` standing for a transaction hash: `{ base: "https://basescan.org/tx/{tx}" }`. */
  explorers?: Readonly<Record<string, string>>;
}

export type ConsoleEngine = HttpEngine & {
  accounts: { get(id: string): Promise<{ livemode: boolean } | null> };
  routes: HttpEngine["routes"];
};

/** What a page handler gets. */
export interface PageContext {
  c: Context;
  api: ConsoleApi;
  grant: ConsoleGrant;
  base: string;
  shell: (title: string, current: string) => Shell;
  /** A fresh Idempotency-Key for a form. */
  newKey: () => string;
  /**
   * Whether the engine serves `method path` and the grant has that route's scope: a button is
   * shown only then (the API checks again when it is pressed).
   */
  allows: (method: "get" | "post" | "delete", path: string) => boolean;
  explorers: Readonly<Record<string, string>>;
  query: (name: string) => string | undefined;
  /** A path parameter of the route. */
  param: (name: string) => string;
  /** Whether the host's `authorize` still grants this account (a long stream asks again now and then). */
  stillGranted: () => Promise<boolean>;
  render: (title: string, current: string, body: Markup, options?: { live?: string; status?: number }) => Response | Promise<Response>;
}

/** A surface's pages: each registers its routes on the app under the base path. */
export type PageSet = (app: Hono<ConsoleAppEnv>, pages: PageRoutes) => void;

export interface PageRoutes {
  get(path: string, handler: (p: PageContext) => Promise<Response>): void;
  /** A form's action: checked as same-origin, its fields as an object. */
  post(path: string, handler: (p: PageContext, form: Record<string, string>) => Promise<Response>): void;
}

type ConsoleAppEnv = { Variables: { page: PageContext } };

/**
 * Builds a console surface: the host's `authorize` first, then a page of the API's own answers.
 * A form comes back as a POST to the console, which checks it came from the console's own
 * origin (`Origin` / `Sec-Fetch-Site`: another site cannot make a signed-in browser act) and
 * calls the API with the form's Idempotency-Key.
 */
export function consoleSurface(
  engine: ConsoleEngine,
  options: ConsoleOptions,
  surface: { defaultBase: string; nav: readonly { href: string; label: string }[]; pages: readonly PageSet[] },
): Hono<ConsoleAppEnv> {
  const base = (options.basePath ?? surface.defaultBase).replace(/\/+$/, "");
  const apiFor = consoleApi(engine, options.onInternalError);
  const scopeOf = new Map(engine.routes.map((r) => [`${r.method} ${r.path}`, r.scope]));
  const app = new Hono<ConsoleAppEnv>({ strict: false }).basePath(base || "/");

  app.use("*", async (c, next) => {
    const grant = await options.authorize(c.req.raw);
    if (!grant) {
      if (options.loginUrl) return c.redirect(options.loginUrl, 303);
      const body =
        await html`<!doctype html><html lang="en"><title>Sign in · payrail</title><main><h1>Sign in required</h1><p>This console is open to signed-in operators only.</p></main></html>`;
      return c.html(body, 401, options.challenge ? { "WWW-Authenticate": options.challenge } : {});
    }
    const api = apiFor(grant);
    const account = await engine.accounts.get(grant.account);
    if (!account) return c.text("Unknown account", 403);
    const url = new URL(c.req.url);
    const p: PageContext = {
      c,
      api,
      grant,
      base,
      newKey: () => `console_${randomBytes(12).toString("hex")}`,
      allows: (method, path) => {
        const scope = scopeOf.get(`${method} ${path}`);
        return scope !== undefined && scopesAllow(grant.scopes ?? [], scope);
      },
      explorers: options.explorers ?? {},
      query: (name) => url.searchParams.get(name) ?? undefined,
      param: (name) => c.req.param(name) ?? "",
      stillGranted: async () => (await options.authorize(c.req.raw))?.account === grant.account,
      shell: (title, current) => ({
        base,
        title,
        nav: surface.nav,
        current,
        user: grant.user ?? null,
        account: grant.account,
        livemode: account.livemode,
        readOnly: (grant.scopes ?? []).length > 0 && (grant.scopes ?? []).every((s) => s.endsWith(":read")),
      }),
      render: async (title, current, body, opts = {}) =>
        c.html(await page(p.shell(title, current), body, opts.live ? { live: opts.live } : {}), (opts.status ?? 200) as 200),
    };
    c.set("page", p);
    await next();
    // pages hold account data and secrets shown once: never cached, framed or sent elsewhere
    for (const [name, value] of Object.entries(PAGE_HEADERS)) c.res.headers.set(name, value);
  });

  const pages: PageRoutes = {
    get: (path, handler) => app.get(path, (c) => handler(c.get("page"))),
    post: (path, handler) =>
      app.post(path, async (c) => {
        const p = c.get("page");
        if (!sameOrigin(c))
          return p.render("Refused", "", html`<h1>Refused</h1><p class="error" role="alert">This form did not come from the console.</p>`, { status: 403 });
        const form = Object.fromEntries(Object.entries(await c.req.parseBody()).filter((e): e is [string, string] => typeof e[1] === "string"));
        return handler(p, form);
      }),
  };
  for (const set of surface.pages) set(app, pages);
  app.notFound((c) => {
    const p = c.get("page");
    return p ? p.render("Not found", "", html`<h1>Not found</h1><p>No such page.</p>`, { status: 404 }) : c.text("Not found", 404);
  });
  return app;
}

const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/** A form sent by a browser from this origin (a browser always says where a POST comes from; other clients hold no session to abuse). */
function sameOrigin(c: Context): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin";
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  // by host: behind a TLS proxy the request's own URL says http:// where the browser says https://
  try {
    return new URL(origin).host === new URL(c.req.url).host;
  } catch {
    return false;
  }
}

/** After an action: back to `path` with a notice (the API's answer is on that page). */
export function done(p: PageContext, path: string, notice: string): Response {
  const sep = path.includes("?") ? "&" : "?";
  return p.c.redirect(`${p.base}${path}${sep}notice=${encodeURIComponent(notice)}`, 303);
}

/** The notice an action left, if any. */
export function notice(p: PageContext): Markup {
  const text = p.query("notice");
  return text ? html`<p class="notice" role="status">${text}</p>` : html``;
}

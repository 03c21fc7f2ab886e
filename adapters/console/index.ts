/**
 * `payrail/console`: the operator console and the webhook portal, each a web-standard `fetch`
 * handler (Hono) a host mounts in one line with its own login (`authorize`). Every page reads and
 * acts through the engine's `/v1` routes in process (docs/console.md).
 */
import type { Hono } from "hono";
import { consoleSurface, type ConsoleEngine, type ConsoleOptions } from "./console-app";
import type { ConsoleGrant } from "./console-api";
import { endpointPages } from "./pages/endpoints";
import { eventPages } from "./pages/events";
import { intentPages } from "./pages/intents";
import { keyPages } from "./pages/keys";
import { overviewPages } from "./pages/overview";
import { payoutPages } from "./pages/payouts";
import { reconciliationPages } from "./pages/reconciliations";
import { reportPages } from "./pages/reports";
import { tradingPages } from "./pages/trading";

export type { ConsoleGrant } from "./console-api";
export type { ConsoleEngine, ConsoleOptions } from "./console-app";

const CONSOLE_NAV = [
  { href: "/", label: "Balances" },
  { href: "/payouts", label: "Payouts" },
  { href: "/batches", label: "Batches" },
  { href: "/payment_intents", label: "Payment intents" },
  { href: "/swaps", label: "Swaps" },
  { href: "/limit_orders", label: "Limit orders" },
  { href: "/events", label: "Events" },
  { href: "/webhook_endpoints", label: "Webhooks" },
  { href: "/api_keys", label: "API keys" },
  { href: "/reports", label: "Reports" },
  { href: "/reconciliations", label: "Reconciliation" },
] as const;

/** The operator console: balances, payouts and batches (live), intents, trading, events, webhooks, keys, reports, reconciliation. Mount it at `basePath` (default `/console`). */
export function createConsole(engine: ConsoleEngine, options: ConsoleOptions): Hono<any> {
  return consoleSurface(engine, options, {
    defaultBase: "/console",
    nav: CONSOLE_NAV,
    pages: [overviewPages, payoutPages, intentPages, tradingPages, eventPages, endpointPages, keyPages, reportPages, reconciliationPages],
  });
}

/**
 * The webhook portal: the endpoints pages alone (no balances, no keys, no money), for a host
 * to give its own customers, each signed in to their account. Mount it at `basePath` (default `/portal`).
 */
export function createWebhookPortal(engine: ConsoleEngine, options: ConsoleOptions): Hono<any> {
  return consoleSurface(engine, options, {
    defaultBase: "/portal",
    nav: [{ href: "/webhook_endpoints", label: "Webhook endpoints" }],
    pages: [
      (_app, pages) => pages.get("/", async (p) => p.c.redirect(`${p.base}/webhook_endpoints`, 303)),
      endpointPages,
      // the portal's attempts link their events: the event pages, scoped to the same account
      eventPages,
    ],
  });
}

/** The challenge that makes a browser ask for `apiKeyAuthorizer`'s credentials (`ConsoleOptions.challenge`). */
export const BASIC_CHALLENGE = 'Basic realm="payrail console", charset="UTF-8"';

/**
 * An `authorize` hook for hosts without a login of their own (and `npm start`): HTTP Basic
 * authentication whose password is an API key of the account; the grant has the key's scopes.
 */
export function apiKeyAuthorizer(engine: { auth: { authenticate(header: string | undefined): Promise<{ isOk(): boolean; value?: any }> } }) {
  return async (request: Request): Promise<ConsoleGrant | null> => {
    const header = request.headers.get("authorization");
    if (!header?.startsWith("Basic ")) return null;
    const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const [user, key] = colon < 0 ? ["", decoded] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
    const principal = await engine.auth.authenticate(`Bearer ${key}`);
    if (!principal.isOk()) return null;
    const { accountId, scopes, keyId } = principal.value as { accountId: string; scopes: readonly string[]; keyId: string };
    return { account: accountId, scopes: scopes as ConsoleGrant["scopes"] & string[], apiKey: keyId, ...(user ? { user } : {}) };
  };
}

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeyAuthorizer, createConsole, createWebhookPortal, type ConsoleGrant } from "../../../adapters/console";
import { testWorld, type TestWorld } from "../../support/engine";
import { storageKinds } from "../../support/storage";

/**
 * Issue 26: the console's pages, rendered from the engine's public API for the account the
 * host's `authorize` grants, and its forms acting through the API with an Idempotency-Key.
 */
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

describe("the operator console (memory)", () => {
  let w: TestWorld;
  let grant: ConsoleGrant | null;
  let consoleApp: ReturnType<typeof createConsole>;
  let payoutId: string;
  let batchId: string;
  const page = async (path: string, init: RequestInit = {}) => {
    const res = await consoleApp.request(`http://console.test/console${path}`, init);
    return { status: res.status, text: await res.text(), res };
  };
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = { origin: "http://console.test" }) =>
    page(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
    });

  beforeAll(async () => {
    w = await testWorld(storageKinds()[0]!);
    grant = { account: w.accountId, user: "ops@example.com" };
    consoleApp = createConsole(w.engine, { authorize: () => grant });
    const key = (n: string) => ({ "Idempotency-Key": n });
    await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "USDC", amount: "1000", chain: "base" }, headers: key("f") });
    const rcp = await (await w.request("POST", "/v1/recipients", { body: { name: "A", chain_addresses: { base: ADDRESS } }, headers: key("r") })).json();
    payoutId = (
      await (await w.request("POST", "/v1/payouts", { body: { amount: "10", asset: "USDC", recipient: rcp.id, reference: "inv-1" }, headers: key("p") })).json()
    ).id;
    const legs = [0, 1, 2].map((row) => ({ row, amount: "1", recipient: rcp.id }));
    batchId = (await (await w.request("POST", "/v1/payouts/batches", { body: { funding: { asset: "USDC", source: "auto" }, legs }, headers: key("b") })).json())
      .id;
  });
  afterAll(() => w.close());

  it("shows balances, payouts, a payout's legs and a batch's progress", async () => {
    const home = await page("/");
    expect(home.status).toBe(200);
    expect(home.text).toContain("Balances");
    expect(home.text).toContain("ops@example.com");
    expect(home.text).toMatch(/USDC available/);
    expect(home.res.headers.get("cache-control")).toBe("no-store");
    expect(home.res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const list = await page("/payouts");
    expect(list.text).toContain(payoutId);
    const one = await page(`/payouts/${payoutId}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain("leg_");
    expect(one.text).toContain("0x"); // the leg's transaction
    const batch = await page(`/batches/${batchId}`);
    expect(batch.text).toContain("of 3 legs done");
    expect(batch.text).toContain("data-live");
    for (const path of ["/batches", "/payment_intents", "/swaps", "/limit_orders", "/events", "/webhook_endpoints", "/api_keys", "/reports"]) {
      const r = await page(path);
      expect(r.status, path).toBe(200);
    }
  });

  it("shows reconciliations: runs them from a form, lists each chain and asset, and a reading's parts and explanation", async () => {
    const ran = await post("/reconciliations/run", { idempotency_key: "rec-run-1" });
    expect(ran.status).toBe(303);
    const list = await page("/reconciliations");
    expect(list.status).toBe(200);
    expect(list.text).toContain("Reconcile every chain now");
    const id = /href="\/console\/reconciliations\/(rec_[0-9a-z]+)"/.exec(list.text)?.[1];
    expect(id).toBeDefined();
    const one = await page(`/reconciliations/${id}`);
    expect(one.status).toBe(200);
    for (const part of ["On chain", "In the books", "Network fees paid", "What explains the difference", "Transfers the engine neither made nor read"]) {
      expect(one.text).toContain(part);
    }
    expect(one.text).not.toContain("Accept the difference"); // balanced: nothing to accept
    expect((await page("/reconciliations?status=drift")).text).toContain("No reading yet.");
  });

  it("answers 401 without a grant, and refuses a form from another site", async () => {
    const saved = grant;
    grant = null;
    expect((await page("/")).status).toBe(401);
    grant = saved;
    const refused = await post("/reports", { type: "ledger_entries", idempotency_key: "x1" }, { origin: "https://evil.example" });
    expect(refused.status).toBe(403);
    const crossSite = await post(
      "/reports",
      { type: "ledger_entries", idempotency_key: "x2" },
      { "sec-fetch-site": "cross-site", origin: "http://console.test" },
    );
    expect(crossSite.status).toBe(403);
    expect((await w.request("GET", "/v1/reports")).ok).toBe(true);
    expect((await (await w.request("GET", "/v1/reports")).json()).data).toHaveLength(0);
  });

  it("acts through the API once per form: a report created twice with one key is one report", async () => {
    const first = await post("/reports", { type: "ledger_entries", idempotency_key: "console_same" });
    expect(first.status).toBe(303);
    await post("/reports", { type: "ledger_entries", idempotency_key: "console_same" });
    const reports = (await (await w.request("GET", "/v1/reports")).json()).data;
    expect(reports).toHaveLength(1);
  });

  it("shows a new API key's secret once, and a read-only grant no button", async () => {
    const created = await post("/api_keys", { name: "ci", idempotency_key: "console_key" });
    expect(created.status).toBe(200);
    expect(created.text).toMatch(/sk_test_[A-Za-z0-9_-]{16,}/);
    // the same form again (a reload): the API replays its answer, which never holds the secret
    const again = await post("/api_keys", { name: "ci", idempotency_key: "console_key" });
    expect(again.text).not.toMatch(/sk_test_[A-Za-z0-9_-]{16,}/);
    expect(again.text).toContain("already answered");
    const saved = grant;
    grant = { account: w.accountId, scopes: ["payouts:read", "balances:read", "webhook_endpoints:read", "reports:read", "events:read"] };
    try {
      for (const path of ["/", "/payouts", `/payouts/${payoutId}`, "/webhook_endpoints"]) {
        const r = await page(path);
        expect(r.status, path).toBe(200);
        expect(r.text, path).not.toMatch(/<form method="post"/);
        expect(r.text, path).toContain("read only");
      }
      const refused = await post("/webhook_endpoints", { url: "https://example.com/hook", enabled_events: "*", idempotency_key: "console_ro" });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain("permission_denied");
      expect((await page("/api_keys")).status).toBe(403);
    } finally {
      grant = saved;
    }
  });

  it("the portal shows endpoints only", async () => {
    const portal = createWebhookPortal(w.engine, { authorize: () => grant });
    const res = await portal.request("http://console.test/portal/webhook_endpoints");
    expect(res.status).toBe(200);
    expect((await portal.request("http://console.test/portal/payouts")).status).toBe(404);
    expect((await portal.request("http://console.test/portal/api_keys")).status).toBe(404);
  });

  it("behind a TLS proxy (the browser's origin https, the request's URL http) a same-origin form is taken", async () => {
    const proxied = await post(
      "/reports",
      { type: "payout_ledger", idempotency_key: "console_tls" },
      { origin: "https://console.test", "sec-fetch-site": "same-origin" },
    );
    expect(proxied.status).toBe(303);
    const byHost = await post("/reports", { type: "payout_ledger", idempotency_key: "console_tls2" }, { origin: "https://console.test" });
    expect(byHost.status).toBe(303);
  });

  it("signs in with an API key over Basic authentication, and the audit log names that key", async () => {
    const app = createConsole(w.engine, { authorize: apiKeyAuthorizer(w.engine) });
    expect((await app.request("http://console.test/console/")).status).toBe(401);
    const auth = `Basic ${Buffer.from(`ops:${w.apiKey}`).toString("base64")}`;
    expect((await app.request("http://console.test/console/", { headers: { authorization: auth } })).status).toBe(200);
    const bad = `Basic ${Buffer.from("ops:sk_test_nopeNOPEnopeNOPEnope").toString("base64")}`;
    expect((await app.request("http://console.test/console/", { headers: { authorization: bad } })).status).toBe(401);
    const form = new URLSearchParams({ name: "from-console", idempotency_key: "console_audit" }).toString();
    const made = await app.request("http://console.test/console/api_keys", {
      method: "POST",
      headers: { authorization: auth, "content-type": "application/x-www-form-urlencoded", origin: "http://console.test" },
      body: form,
    });
    expect(made.status).toBe(200);
    const [record] = (await (await w.request("GET", "/v1/audit_log?limit=1")).json()).data;
    const keys = (await (await w.request("GET", "/v1/api_keys?limit=100")).json()).data;
    const signedInWith = keys.find((k: any) => w.apiKey.length > 0 && k.last_used !== null && k.name !== "from-console");
    expect(record.actor).toEqual({ type: "api_key", api_key: signedInWith.id }); // the key the operator signed in with
  });
});

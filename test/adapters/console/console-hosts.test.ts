import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import express from "express";
import fc from "fast-check";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsole, createWebhookPortal, type ConsoleGrant } from "../../../adapters/console";
import { testWorld, type TestWorld } from "../../support/engine";
import { storageKinds } from "../../support/storage";

/**
 * Issue 26: a host mounts the console and the portal in its own Express and Hono servers with
 * its own `authorize`, and one account never sees another's data on any console route.
 */
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/** The host's own login, as a test stands it in: a session cookie naming the account. */
const byCookie = (request: Request): ConsoleGrant | null => {
  const account = /(?:^|; )session=([^;]+)/.exec(request.headers.get("cookie") ?? "")?.[1];
  return account ? { account, user: `user-of-${account}` } : null;
};

describe("a host mounting the console (memory)", () => {
  let w: TestWorld;
  let other: string;
  /** Ids of the first account's objects, each with the console path that shows it. */
  const owned: { id: string; path: string }[] = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    w = await testWorld(storageKinds()[0]!);
    other = (await w.engine.accounts.create({ name: "Other" })).id;
    const key = (n: string) => ({ "Idempotency-Key": n });
    const json = async (method: string, path: string, body: unknown, k: string) => (await w.request(method, path, { body, headers: key(k) })).json();
    await json("POST", "/v1/test_helpers/balances/fund", { asset: "USDC", amount: "100", chain: "base" }, "f");
    const rcp = await json("POST", "/v1/recipients", { name: "A", chain_addresses: { base: ADDRESS } }, "r");
    const po = await json("POST", "/v1/payouts", { amount: "2", asset: "USDC", recipient: rcp.id }, "p");
    const batch = await json(
      "POST",
      "/v1/payouts/batches",
      { funding: { asset: "USDC", source: "auto" }, legs: [{ row: 0, amount: "1", recipient: rcp.id }] },
      "b",
    );
    const we = await json("POST", "/v1/webhook_endpoints", { url: "https://example.com/hooks", enabled_events: ["*"] }, "w");
    const report = await json("POST", "/v1/reports", { type: "ledger_entries" }, "rp");
    const pi = await json("POST", "/v1/payment_intents", { amount: "5", asset: "USDC", chains: ["base"] }, "pi");
    const event = (await (await w.request("GET", "/v1/events?limit=1")).json()).data[0];
    owned.push(
      { id: po.id, path: `/payouts/${po.id}` },
      { id: batch.id, path: `/batches/${batch.id}` },
      { id: we.id, path: `/webhook_endpoints/${we.id}` },
      { id: report.id, path: `/reports/${report.id}` },
      { id: pi.id, path: `/payment_intents/${pi.id}` },
      { id: event.id, path: `/events/${event.id}` },
    );
  });
  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    await w.close();
  });

  const listen = async (listener: Parameters<typeof createServer>[1]): Promise<string> => {
    const server = createServer(listener);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it("in Express, beside the host's own routes, with the host's login", async () => {
    const app = express();
    app.get("/health", (_req, res) => res.send("ok"));
    app.all("/console{/*splat}", getRequestListener(createConsole(w.engine, { authorize: byCookie }).fetch));
    app.all("/portal{/*splat}", getRequestListener(createWebhookPortal(w.engine, { authorize: byCookie }).fetch));
    const base = await listen(app);
    expect(await (await fetch(`${base}/health`)).text()).toBe("ok");
    expect((await fetch(`${base}/console/`)).status).toBe(401);
    const page = await fetch(`${base}/console/payouts`, { headers: { cookie: `session=${w.accountId}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(owned[0]!.id);
    const portal = await fetch(`${base}/portal/webhook_endpoints`, { headers: { cookie: `session=${w.accountId}` } });
    expect(await portal.text()).toContain(owned[2]!.id);
  });

  it("in Hono, at a path of the host's choosing", async () => {
    const app = new Hono();
    app.get("/", (c) => c.text("home"));
    app.route("/", createConsole(w.engine, { authorize: byCookie, basePath: "/ops/payrail" }));
    const base = await listen(getRequestListener(app.fetch));
    const page = await fetch(`${base}/ops/payrail/batches`, { headers: { cookie: `session=${w.accountId}` } });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain(owned[1]!.id);
    expect(text).toContain('href="/ops/payrail/payouts"'); // links are built from the mount path
    expect(await (await fetch(`${base}/`)).text()).toBe("home");
  });

  it("never shows one account's objects to another, on any route", async () => {
    const app = createConsole(w.engine, { authorize: byCookie });
    const portal = createWebhookPortal(w.engine, { authorize: byCookie });
    const lists = ["/", "/payouts", "/batches", "/payment_intents", "/swaps", "/limit_orders", "/events", "/webhook_endpoints", "/api_keys", "/reports"];
    const ids = owned.map((o) => o.id);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...lists, ...owned.map((o) => o.path), ...owned.map((o) => `${o.path}/live`)),
        fc.constantFrom<"console" | "portal">("console", "portal"),
        async (path, surface) => {
          const res =
            surface === "console"
              ? await app.request(`http://host.test/console${path}`, { headers: { cookie: `session=${other}` } })
              : await portal.request(`http://host.test/portal${path}`, { headers: { cookie: `session=${other}` } });
          const text = await res.text();
          const asked = owned.find((o) => path.startsWith(o.path))?.id;
          // the only id of the first account a page may show is the one the other asked for, in "No such …"
          for (const id of ids) if (id !== asked) expect(text, `${surface}${path}`).not.toContain(id);
          if (asked && !path.endsWith("/live")) expect(res.status, `${surface}${path}`).toBe(404);
        },
      ),
      { numRuns: 60 },
    );
    // and the first account does see them: the property could fail
    const mine = await app.request(`http://host.test/console${owned[0]!.path}`, { headers: { cookie: `session=${w.accountId}` } });
    expect(mine.status).toBe(200);
  });
});

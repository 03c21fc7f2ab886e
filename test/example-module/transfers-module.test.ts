import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/clock";
import { devPorts } from "../../adapters/dev";
import { createHttpApp } from "../../adapters/http";
import type { StorageHarness } from "../../src/conformance";
import { DEFAULT_MODULES, createEngine } from "../../src/modules";
import { checkedRequest } from "../support/engine";
import { expectLedgerConsistent } from "../support/ledger-checks";
import { redoclyLint } from "../support/openapi-lint";
import { closeSharedStorage, storageKinds } from "../support/storage";
import { transfersModule } from "./transfers";

/**
 * A resource added as an outside contributor adds one (issue 19): its folder
 * (`test/example-module/transfers/`) and one line, the module appended to the engine's list.
 * Nothing central is edited, and its routes, events with samples, scope, id prefix and OpenAPI
 * entries all appear; an engine without the line knows none of them.
 */
describe.each(storageKinds())("a resource added with its folder and one line ($name)", (kind) => {
  let harness: StorageHarness;
  let engine: Awaited<ReturnType<typeof makeEngine>>;
  let app: ReturnType<typeof createHttpApp>;
  const clock = new ManualClock();
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };

  const makeEngine = (storage: StorageHarness["storage"]) =>
    createEngine({ ...devPorts({ clock }), storage, clock, modules: [...DEFAULT_MODULES, transfersModule] });

  const request = (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    checkedRequest(app, path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const balance = async (key: string) => {
    const res = await request(key, "GET", "/v1/balances");
    const usdc = (await res.json()).data.find((b: { asset: string }) => b.asset === "USDC");
    return usdc.chains.base.available as string;
  };

  beforeAll(async () => {
    harness = await kind.factory();
    engine = await makeEngine(harness.storage);
    app = createHttpApp(engine);
    for (const name of ["Alice", "Bob"]) {
      const account = await engine.accounts.create({ name });
      const key = (await engine.accounts.createApiKey(account.id))._unsafeUnwrap().key;
      if (name === "Alice") alice = { id: account.id, key };
      else bob = { id: account.id, key };
    }
    await engine.testHelpers.fund(await engine.accounts.context(alice.id), { asset: "USDC", chain: "base", amount: "10" });
  });
  afterAll(async () => {
    await engine.close();
    await harness.close();
    await closeSharedStorage();
  });

  it("serves its routes: a transfer moves funds between two accounts, both hear balance.updated, the ledger balances", async () => {
    const res = await request(
      alice.key,
      "POST",
      "/v1/transfers",
      { destination: bob.id, asset: "USDC", chain: "base", amount: "4" },
      { "idempotency-key": "t-1" },
    );
    expect(res.status).toBe(200);
    const made = await res.json();
    expect(made).toMatchObject({ object: "transfer", status: "posted", destination: bob.id, amount: "4" });
    expect(made.id).toMatch(/^tr_[0-9a-z]{26}$/);
    expect(await balance(alice.key)).toBe("6");
    expect(await balance(bob.key)).toBe("4");
    const listed = await (await request(alice.key, "GET", "/v1/transfers")).json();
    expect(listed.data.map((t: { id: string }) => t.id)).toEqual([made.id]);
    const aliceEvents = await (await request(alice.key, "GET", "/v1/events?limit=10")).json();
    expect(aliceEvents.data.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(["transfer.created", "balance.updated"]));
    const bobEvents = await (await request(bob.key, "GET", "/v1/events?type=balance.updated")).json();
    expect(bobEvents.data[0].data.object.chains.base.available).toBe("4");
    await expectLedgerConsistent(harness.inspect, alice.id, bob.id);
  });

  it("refuses what its machine and the ledger refuse, changing nothing", async () => {
    const tooMuch = await request(
      alice.key,
      "POST",
      "/v1/transfers",
      { destination: bob.id, asset: "USDC", chain: "base", amount: "100" },
      { "idempotency-key": "t-2" },
    );
    expect(tooMuch.status).toBe(402);
    expect((await tooMuch.json()).error.code).toBe("insufficient_funds");
    const made = await (
      await request(alice.key, "POST", "/v1/transfers", { destination: bob.id, asset: "USDC", chain: "base", amount: "1" }, { "idempotency-key": "t-3" })
    ).json();
    const reversed = await request(alice.key, "POST", `/v1/transfers/${made.id}/reverse`);
    expect((await reversed.json()).status).toBe("reversed");
    const again = await request(alice.key, "POST", `/v1/transfers/${made.id}/reverse`);
    expect(again.status).toBe(400);
    expect(await balance(alice.key)).toBe("6");
    expect(await balance(bob.key)).toBe("4");
    await expectLedgerConsistent(harness.inspect, alice.id, bob.id);
  });

  it("has its scope: keys can be limited to it, and it limits them", async () => {
    const made = await request(alice.key, "POST", "/v1/api_keys", { scopes: ["transfers:read"] });
    expect(made.status).toBe(200);
    const readOnly = (await made.json()).secret as string;
    expect((await request(readOnly, "GET", "/v1/transfers")).status).toBe(200);
    const denied = await request(
      readOnly,
      "POST",
      "/v1/transfers",
      { destination: bob.id, asset: "USDC", chain: "base", amount: "1" },
      { "idempotency-key": "t-4" },
    );
    expect(denied.status).toBe(403);
    expect((await request(alice.key, "POST", "/v1/api_keys", { scopes: ["transfer:read"] })).status).toBe(400);
  });

  it("has its events in the catalogue, with samples of its object", async () => {
    expect(engine.catalogue.eventTypes).toEqual(expect.arrayContaining(["transfer.created", "transfer.reversed"]));
    const res = await request(alice.key, "POST", "/v1/test_helpers/events/trigger", { type: "transfer.reversed" });
    expect(res.status).toBe(200);
    const event = await res.json();
    expect(event.data.object).toMatchObject({ object: "transfer", status: "reversed", sample: true });
    const endpoint = await request(alice.key, "POST", "/v1/webhook_endpoints", { url: "https://hooks.example.com/t", enabled_events: ["transfer.created"] });
    expect(endpoint.status).toBe(200);
  });

  it("is in the OpenAPI document (paths, tag, schema, event types, scopes), which Redocly passes with no warning", async () => {
    const doc = await (await app.request("/v1/openapi.json")).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/transfers", "/v1/transfers/{id}", "/v1/transfers/{id}/reverse"]));
    expect(doc.tags).toContainEqual({ name: "Transfers", description: "Funds moved between accounts of one mode" });
    expect(doc.components.schemas.Transfer.properties.status.enum).toEqual(["posted", "reversed"]);
    expect(doc.components.schemas.EventType.enum).toEqual(expect.arrayContaining(["transfer.created", "transfer.reversed"]));
    expect(doc.components.schemas.Scope.enum).toEqual(expect.arrayContaining(["transfers:read", "transfers:write"]));
    const report = await redoclyLint(doc);
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it("is unknown to an engine without the line", async () => {
    const other = await kind.factory();
    const plain = await createEngine({ ...devPorts({ clock }), storage: other.storage, clock });
    try {
      const plainApp = createHttpApp(plain);
      const account = await plain.accounts.create({ name: "Carol" });
      const key = (await plain.accounts.createApiKey(account.id))._unsafeUnwrap().key;
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      expect((await plainApp.request("/v1/transfers", { headers })).status).toBe(404);
      const trigger = await plainApp.request("/v1/test_helpers/events/trigger", {
        method: "POST",
        headers,
        body: JSON.stringify({ type: "transfer.created" }),
      });
      expect(trigger.status).toBe(400);
      expect(plain.catalogue.isScope("transfers:read")).toBe(false);
      expect("transfers" in plain).toBe(false);
    } finally {
      await plain.close();
      await other.close();
    }
  });
});

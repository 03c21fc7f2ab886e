import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { provided } from "../../../src/engine/engine";
import { DEFAULT_CATALOGUE } from "../../../src/modules";
import { webhooksModule } from "../../../src/resources/webhook-endpoints";

const EVENT_TYPES = DEFAULT_CATALOGUE.eventTypes;
import { WEBHOOK_ENDPOINTS } from "../../../src/resources/webhook-endpoints/webhook-endpoint-doc";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import { registerEndpoint, trigger } from "../../support/webhooks";

const URL_OK = "https://hooks.example.com/payrail";

async function json(res: Response): Promise<any> {
  return res.json();
}

for (const kind of storageKinds()) {
  describe(`/v1/webhook_endpoints over ${kind.name}`, () => {
    let w: TestWorld;
    beforeEach(async () => {
      w = await testWorld(kind); // the default, strict delivery adapter: HTTPS to public addresses only
    });
    afterEach(() => w.close());

    it("registers an endpoint and shows its secret once", async () => {
      const res = await w.request("POST", "/v1/webhook_endpoints", {
        body: { url: URL_OK, enabled_events: ["payout.settled", "payout.failed"], description: "ops" },
      });
      expect(res.status).toBe(200);
      const created = await json(res);
      expect(created).toMatchObject({
        object: "webhook_endpoint",
        url: URL_OK,
        status: "enabled",
        disabled_reason: null,
        enabled_events: ["payout.settled", "payout.failed"],
        description: "ops",
        livemode: false,
        created: "2026-01-01T00:00:00.000Z",
      });
      expect(created.id).toMatch(/^we_[0-9a-z]{26}$/);
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(created).not.toHaveProperty("secrets");
      const read = await json(await w.request("GET", `/v1/webhook_endpoints/${created.id}`));
      const { secret: _, ...withoutSecret } = created;
      expect(read).toEqual(withoutSecret);
      const list = await json(await w.request("GET", "/v1/webhook_endpoints"));
      expect(list).toMatchObject({ object: "list", has_more: false, next_cursor: null });
      expect(list.data).toEqual([withoutSecret]);
    });

    it.each([
      [{ enabled_events: ["*"] }, "parameter_missing", "url"],
      [{ url: URL_OK }, "parameter_missing", "enabled_events"],
      [{ url: "hooks.example.com", enabled_events: ["*"] }, "parameter_invalid", "url"],
      [{ url: "http://hooks.example.com/x", enabled_events: ["*"] }, "parameter_invalid", "url"],
      [{ url: "https://127.0.0.1/x", enabled_events: ["*"] }, "parameter_invalid", "url"],
      [{ url: "https://10.0.0.7/x", enabled_events: ["*"] }, "parameter_invalid", "url"],
      [{ url: "https://[::1]/x", enabled_events: ["*"] }, "parameter_invalid", "url"],
      [{ url: "https://localhost/x", enabled_events: ["*"] }, "parameter_invalid", "url"],
      [{ url: "https://hooks.example.com:8080/x", enabled_events: ["*"] }, "parameter_invalid", "url"],
      [{ url: "https://hooks.example.com:22/x", enabled_events: ["*"] }, "parameter_invalid", "url"],
      [{ url: URL_OK, enabled_events: ["payout.created", "payout.exploded"] }, "parameter_invalid", "enabled_events[1]"],
      [{ url: URL_OK, enabled_events: [] }, "parameter_invalid", "enabled_events"],
      [{ url: URL_OK, enabled_events: ["*", "payout.created"] }, "parameter_invalid", "enabled_events"],
      [{ url: URL_OK, enabled_events: "*" }, "parameter_invalid", "enabled_events"],
      [{ url: URL_OK, enabled_events: ["*"], secret: "mine" }, "parameter_invalid", "secret"],
    ])("refuses %j with %s on %s and creates nothing", async (body, code, param) => {
      const res = await w.request("POST", "/v1/webhook_endpoints", { body });
      const error = (await json(res)).error;
      expect(res.status).toBe(400);
      expect(error).toMatchObject({ code, param, type: "invalid_request_error" });
      // the audit record of the account's first key is all there is
      expect((await w.harness.inspect.resources(w.accountId)).filter((r) => r.kind !== "audit_record")).toEqual([]);
      // the engine's own recurring work only (housekeeping, each chain's reconciliation)
      expect((await w.harness.inspect.work()).filter((j) => j.kind !== "maintenance.prune" && j.kind !== "reconciliations.run")).toEqual([]);
    });

    it("updates the URL, events and description, and disables and enables by hand", async () => {
      const ep = await registerEndpoint(w, URL_OK, ["payout.created"]);
      const update = (body: unknown) => w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body });
      let res = await update({ url: "https://other.example.com/h", enabled_events: ["*"], description: "all of it" });
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({ url: "https://other.example.com/h", enabled_events: ["*"], description: "all of it" });
      res = await update({ status: "disabled" });
      expect(await json(res)).toMatchObject({ status: "disabled", disabled_reason: "manual" });
      res = await update({ status: "enabled" });
      expect(await json(res)).toMatchObject({ status: "enabled", disabled_reason: null });
      res = await update({ url: "http://other.example.com/h" });
      expect((await json(res)).error).toMatchObject({ code: "parameter_invalid", param: "url" });
      res = await update({ status: "paused" });
      expect((await json(res)).error).toMatchObject({ code: "parameter_invalid", param: "status" });
      const [stored] = (await w.harness.inspect.resources(w.accountId)).filter((r) => r.kind === "webhook_endpoint");
      expect(stored).toMatchObject({ version: 4, status: "enabled" }); // three updates applied, two refused
    });

    it("never enables again an endpoint whose receiver answered 410 Gone", async () => {
      const ep = await registerEndpoint(w, URL_OK);
      await provided(w.engine, webhooksModule).webhookEndpoints.markGone(w.accountId, false, ep.id);
      const read = await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}`));
      expect(read).toMatchObject({ status: "disabled", disabled_reason: "gone" });
      const res = await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { status: "enabled" } });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toMatchObject({ code: "parameter_invalid", param: "status" });
      // disabling it by hand keeps the reason
      const kept = await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { status: "disabled" } }));
      expect(kept).toMatchObject({ status: "disabled", disabled_reason: "gone" });
    });

    it("rotates the secret: the new one is shown once, the old one signs beside it for 24 hours", async () => {
      const ep = await registerEndpoint(w, URL_OK);
      w.clock.advance(1_000);
      const rotated = await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}/rotate_secret`));
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(ep.secret);
      expect(await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}`))).not.toHaveProperty("secret");
      const stored = (await w.engine.storage.transaction((tx) => WEBHOOK_ENDPOINTS.get(tx, w.accountId, ep.id)))!.doc;
      expect(stored.secrets).toEqual([
        { secret: rotated.secret, expiresAt: null },
        { secret: ep.secret, expiresAt: w.clock.now() + 24 * 3_600_000 },
      ]);
    });

    it("deletes an endpoint; it is gone from reads and lists", async () => {
      const ep = await registerEndpoint(w, URL_OK);
      const res = await w.request("DELETE", `/v1/webhook_endpoints/${ep.id}`);
      expect(await json(res)).toEqual({ id: ep.id, object: "webhook_endpoint", deleted: true });
      expect((await w.request("GET", `/v1/webhook_endpoints/${ep.id}`)).status).toBe(404);
      expect((await w.request("DELETE", `/v1/webhook_endpoints/${ep.id}`)).status).toBe(404);
      expect((await json(await w.request("GET", "/v1/webhook_endpoints"))).data).toEqual([]);
    });

    it("keeps accounts apart and checks scopes", async () => {
      const ep = await registerEndpoint(w, URL_OK);
      const other = await w.engine.accounts.create({ name: "Other" });
      const otherKey = (await w.engine.accounts.createApiKey(other.id))._unsafeUnwrap().key;
      for (const [method, path] of [
        ["GET", `/v1/webhook_endpoints/${ep.id}`],
        ["POST", `/v1/webhook_endpoints/${ep.id}`],
        ["DELETE", `/v1/webhook_endpoints/${ep.id}`],
        ["POST", `/v1/webhook_endpoints/${ep.id}/rotate_secret`],
        ["GET", `/v1/webhook_endpoints/${ep.id}/deliveries`],
        ["POST", `/v1/webhook_endpoints/${ep.id}/replay`],
      ] as const) {
        const res = await w.request(method, path, { key: otherKey, ...(method === "POST" && path.endsWith("replay") ? { body: { from: "2025-12-31" } } : {}) });
        expect([method, path, res.status]).toEqual([method, path, 404]);
      }
      expect((await json(await w.request("GET", "/v1/webhook_endpoints", { key: otherKey }))).data).toEqual([]);
      const reader = (await w.engine.accounts.createApiKey(w.accountId, { scopes: ["webhook_endpoints:read"] }))._unsafeUnwrap().key;
      expect((await w.request("GET", "/v1/webhook_endpoints", { key: reader })).status).toBe(200);
      const denied = await w.request("POST", "/v1/webhook_endpoints", { key: reader, body: { url: URL_OK, enabled_events: ["*"] } });
      expect(denied.status).toBe(403);
    });

    it("lists with a status filter and walks pages with cursors", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await registerEndpoint(w, `${URL_OK}/${i}`)).id);
        w.clock.advance(1);
      }
      await w.request("POST", `/v1/webhook_endpoints/${ids[1]}`, { body: { status: "disabled" } });
      const disabled = await json(await w.request("GET", "/v1/webhook_endpoints?status=disabled"));
      expect(disabled.data.map((e: any) => e.id)).toEqual([ids[1]]);
      const first = await json(await w.request("GET", "/v1/webhook_endpoints?limit=3"));
      expect(first.has_more).toBe(true);
      const second = await json(await w.request("GET", `/v1/webhook_endpoints?limit=3&starting_after=${first.next_cursor}`));
      expect([...first.data, ...second.data].map((e: any) => e.id)).toEqual([...ids].reverse());
    });

    it("triggers a sample event of any type in test mode only", async () => {
      for (const type of EVENT_TYPES) {
        const event = await trigger(w, type);
        expect(event).toMatchObject({ object: "event", type, livemode: false, data: { object: { sample: true } } });
        expect(event.id).toMatch(/^evt_/);
        expect(await json(await w.request("GET", `/v1/events/${event.id}`))).toEqual(event);
      }
      const bad = await w.request("POST", "/v1/test_helpers/events/trigger", { body: { type: "payout.exploded" } });
      expect((await json(bad)).error).toMatchObject({ code: "parameter_invalid", param: "type" });
      const live = await w.engine.accounts.create({ name: "Live", livemode: true });
      const liveKey = (await w.engine.accounts.createApiKey(live.id))._unsafeUnwrap().key;
      const res = await w.request("POST", "/v1/test_helpers/events/trigger", { key: liveKey, body: { type: "payout.created" } });
      expect(res.status).toBe(404);
    });

    it("describes every webhook route in the OpenAPI document", async () => {
      const doc = await json(await w.request("GET", "/v1/openapi.json"));
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining([
          "/v1/webhook_endpoints",
          "/v1/webhook_endpoints/{id}",
          "/v1/webhook_endpoints/{id}/rotate_secret",
          "/v1/webhook_endpoints/{id}/deliveries",
          "/v1/webhook_endpoints/{id}/replay",
          "/v1/test_helpers/events/trigger",
        ]),
      );
      expect(doc.paths["/v1/webhook_endpoints/{id}/replay"].post.responses).toHaveProperty("202");
    });
  });
}

describe("a host that opts in to private receivers", () => {
  it("accepts plain http and loopback URLs", async () => {
    const [memory] = storageKinds();
    const w = await testWorld(memory!, { delivery: createHttpDelivery({ allowPrivateNetworks: true }) });
    try {
      const ep = await registerEndpoint(w, "http://127.0.0.1:9999/hooks");
      expect(ep.url).toBe("http://127.0.0.1:9999/hooks");
    } finally {
      await w.close();
    }
  });
});

afterAll(closeSharedStorage);

import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryAdapter, DeliveryRequest } from "../../../src/ports/delivery";
import { INITIAL_VERSION, LATEST_VERSION } from "../../../src/versions/api-versions";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * Issue 27: dated API versions. A client pinned to 2026-01-01 sees events and its account
 * without `api_version` (the shape before 2026-11-27); a client on 2026-11-27 sees the field.
 * The version is the `Payrail-Version` header's, else the account's default (pinned at creation
 * to the newest, settable), and every answer states it. Webhooks use the account's default.
 */
const json = (res: Response): Promise<any> => res.json();

/** A delivery port that keeps what it was asked to send and answers 200. */
function capturingDelivery(): DeliveryAdapter & { sent: DeliveryRequest[] } {
  const sent: DeliveryRequest[] = [];
  return {
    name: "capture",
    sent,
    checkUrl: () => null,
    send: async (request) => {
      sent.push(request);
      return { kind: "response", status: 200, retryAfterSeconds: null, latencyMs: 1 };
    },
    close: async () => undefined,
  };
}

for (const kind of storageKinds()) {
  describe(`dated API versions on ${kind.name}`, () => {
    let w: TestWorld;
    let delivery: ReturnType<typeof capturingDelivery>;
    beforeEach(async () => {
      delivery = capturingDelivery();
      w = await testWorld(kind, { delivery });
    });
    afterEach(() => w.close());

    let n = 0;
    /** Checked against the OpenAPI document, which describes every version (a field a version added is optional). */
    const call = (method: string, path: string, version: string | null, body?: unknown, key = `k-${n++}`) => {
      const headers: Record<string, string> = {};
      if (version !== null) headers["payrail-version"] = version;
      if (body !== undefined) headers["idempotency-key"] = key;
      return w.request(method, path, { headers, ...(body !== undefined ? { body } : {}) });
    };

    it("pins a new account to the newest version, and states the version of every answer", async () => {
      const res = await w.request("GET", "/v1/account");
      expect(res.headers.get("payrail-version")).toBe(LATEST_VERSION);
      expect(await json(res)).toMatchObject({ object: "account", api_version: LATEST_VERSION });
      const older = await call("GET", "/v1/account", INITIAL_VERSION);
      expect(older.headers.get("payrail-version")).toBe(INITIAL_VERSION);
      const account = await json(older);
      expect(account).toMatchObject({ object: "account", id: w.accountId });
      expect(account).not.toHaveProperty("api_version");
    });

    it("answers an event in the shape of the version asked for, replays included", async () => {
      const created = await call("POST", "/v1/test_helpers/events/trigger", INITIAL_VERSION, { type: "payout.settled" }, "trigger-1");
      expect(created.status).toBe(200);
      const old = await json(created);
      expect(old).toMatchObject({ object: "event", type: "payout.settled" });
      expect(old).not.toHaveProperty("api_version");

      const newest = await json(await call("GET", `/v1/events/${old.id}`, LATEST_VERSION));
      expect(newest).toEqual({ ...old, api_version: LATEST_VERSION });
      expect(Object.keys(newest)).toEqual(["id", "object", "type", "created", "livemode", "api_version", "data", "request"]);

      // the saved answer is the newest shape, rendered for each replay in the replay's version
      const replayNew = await call("POST", "/v1/test_helpers/events/trigger", LATEST_VERSION, { type: "payout.settled" }, "trigger-1");
      expect(replayNew.headers.get("idempotent-replayed")).toBe("true");
      expect(await json(replayNew)).toEqual(newest);
      const replayOld = await call("POST", "/v1/test_helpers/events/trigger", INITIAL_VERSION, { type: "payout.settled" }, "trigger-1");
      expect(await json(replayOld)).toEqual(old);

      // lists render each item
      const list = await json(await call("GET", "/v1/events?type=payout.settled", INITIAL_VERSION));
      expect(list.data).toEqual([old]);
    });

    it("refuses an unknown version with 400 from the catalogue, before any effect", async () => {
      for (const bad of ["2020-01-01", "latest", ""]) {
        const res = await call("POST", "/v1/test_helpers/events/trigger", bad, { type: "payout.settled" });
        expect(res.status).toBe(400);
        expect(res.headers.get("request-id")).toMatch(/^req_/);
        expect((await json(res)).error).toMatchObject({ type: "invalid_request_error", code: "parameter_invalid", param: "Payrail-Version" });
      }
      expect((await json(await w.request("GET", "/v1/events"))).data).toEqual([]);
    });

    it("lets the account change its default version, which requests without the header and webhooks then use", async () => {
      const refused = await w.request("POST", "/v1/account", { body: { api_version: "1999-01-01" } });
      expect(refused.status).toBe(400);
      expect((await json(refused)).error).toMatchObject({ code: "parameter_invalid", param: "api_version" });

      const endpoint = await json(await w.request("POST", "/v1/webhook_endpoints", { body: { url: "https://example.com/hooks", enabled_events: ["*"] } }));
      expect(endpoint.id).toMatch(/^we_/);
      const deliveredFor = async (type: string) => {
        expect((await call("POST", "/v1/test_helpers/events/trigger", null, { type })).status).toBe(200);
        await w.engine.worker.runDue();
        await w.engine.worker.runDue();
        return delivery.sent.map((r) => JSON.parse(r.body)).filter((e) => e.type === type);
      };
      const [newest] = await deliveredFor("payout.settled");
      expect(newest).toMatchObject({ object: "event", api_version: LATEST_VERSION });

      const updated = await w.request("POST", "/v1/account", { body: { api_version: INITIAL_VERSION } });
      expect(updated.status).toBe(200);
      expect(updated.headers.get("payrail-version")).toBe(LATEST_VERSION); // the request's own version
      const plain = await w.request("GET", "/v1/account");
      expect(plain.headers.get("payrail-version")).toBe(INITIAL_VERSION);
      expect(await json(plain)).not.toHaveProperty("api_version");
      expect(await json(await call("GET", "/v1/account", LATEST_VERSION))).toMatchObject({ api_version: INITIAL_VERSION });

      const [old] = await deliveredFor("payout.failed");
      expect(old).toMatchObject({ object: "event", type: "payout.failed" });
      expect(old).not.toHaveProperty("api_version");
    });

    it("shows a swap's executions, a fill's transactions and a quote's venue amounts from 2026-12-07 on, and not before", async () => {
      await call("POST", "/v1/test_helpers/balances/fund", null, { asset: "USDC", chain: "base", amount: "1000" });
      const quote = await json(await call("POST", "/v1/quotes", null, { from: { asset: "USDC", amount: "100" }, to: { asset: "ETH" } }));
      expect(quote.venues[0]).toHaveProperty("from_amount");
      const swap = await json(await call("POST", "/v1/swaps", null, { quote: quote.id, destination_chain: "base" }));
      await w.engine.worker.runDue();
      const latest = await json(await call("GET", `/v1/swaps/${swap.id}`, "2026-12-07"));
      expect(latest.executions).toHaveLength(quote.venues.length);
      const before = await json(await call("GET", `/v1/swaps/${swap.id}`, "2026-11-27"));
      expect(before).toEqual(Object.fromEntries(Object.entries(latest).filter(([k]) => k !== "executions")));
      const oldQuote = await json(await call("GET", `/v1/quotes/${quote.id}`, "2026-11-27"));
      for (const v of oldQuote.venues) expect(Object.keys(v)).toEqual(["name", "weight"]);
    });

    it("treats an account made before versions existed as on the initial version; a host may pin one at creation", async () => {
      await w.harness.storage.transaction((tx) => tx.accounts.updateAccountSettings(w.accountId, {}));
      const res = await w.request("GET", "/v1/account");
      expect(res.headers.get("payrail-version")).toBe(INITIAL_VERSION);
      const pinned = await w.engine.accounts.create({ name: "Pinned", api_version: INITIAL_VERSION });
      const key = (await w.engine.accounts.createApiKey(pinned.id))._unsafeUnwrap().key;
      const other = await w.request("GET", "/v1/account", { key });
      expect(other.headers.get("payrail-version")).toBe(INITIAL_VERSION);
      await expect(w.engine.accounts.create({ name: "Bad", api_version: "2001-01-01" })).rejects.toMatchObject({ code: "parameter_invalid" });
    });
  });
}

afterAll(() => closeSharedStorage());

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { MAX_HEADERS } from "../../../src/resources/webhook-endpoints/endpoint-headers";
import { testWorld, type TestWorld } from "../../support/engine";
import { TestReceiver } from "../../support/receiver";
import { storageKinds } from "../../support/storage";
import { trigger } from "../../support/webhooks";

async function json(res: Response): Promise<any> {
  return res.json();
}

describe("custom headers of webhook endpoints", () => {
  let w: TestWorld;
  let receiver: TestReceiver;
  beforeEach(async () => {
    receiver = await TestReceiver.start();
    w = await testWorld(storageKinds()[0]!, { delivery: createHttpDelivery({ allowPrivateNetworks: true }) });
  });
  afterEach(async () => {
    await w.close();
    await receiver.close();
  });

  const create = (headers: unknown) => w.request("POST", "/v1/webhook_endpoints", { body: { url: receiver.url(), enabled_events: ["*"], headers } });

  it("sends them on every delivery, shows names lower-case and never a credential's value, and merges updates", async () => {
    const res = await create({ "X-Tenant": "acme", Authorization: "Bearer s3cret", "X-Api-Key": "k" });
    const ep = await json(res);
    expect(res.status).toBe(200);
    expect(ep.headers).toEqual({ authorization: null, "x-api-key": null, "x-tenant": "acme" });
    await trigger(w, "payout.settled");
    await w.engine.worker.runDue();
    const [req] = receiver.requests;
    expect(req!.headers).toMatchObject({ authorization: "Bearer s3cret", "x-api-key": "k", "x-tenant": "acme", "content-type": "application/json" });
    expect(req!.headers["service-signature"]).toMatch(/^t=\d+,v1=/);
    // an update sets the headers given and removes those given as ""
    const updated = await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { headers: { "x-tenant": "", "X-Region": "eu" } } }));
    expect(updated.headers).toEqual({ authorization: null, "x-api-key": null, "x-region": "eu" });
    // the audit log records which headers changed, never their values
    const audit = await json(await w.request("GET", "/v1/audit_log?limit=1"));
    expect(audit.data).toHaveLength(1);
    expect(JSON.stringify(audit.data[0])).toContain("x-region");
    expect(JSON.stringify(audit)).not.toContain("s3cret");
  });

  it("refuses reserved names, bad names or values, and too many or too big, changing nothing", async () => {
    const big = Object.fromEntries(Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`x-h${i}`, "v"]));
    const huge = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`x-h${i}`, "v".repeat(1000)]));
    for (const headers of [
      { "Service-Signature": "x" },
      { "content-type": "text/plain" },
      { Host: "evil.example" },
      { "webhook-id": "x" },
      { "Transfer-Encoding": "chunked" },
      { "bad name": "x" },
      { "x-ok": "line\r\nInjected: yes" },
      big,
      huge,
      ["x"],
    ]) {
      const res = await create(headers);
      const body = await json(res);
      expect([res.status, body.error.code], JSON.stringify(headers)).toEqual([400, "parameter_invalid"]);
      expect(body.error.param).toMatch(/^headers/);
    }
    expect((await json(await w.request("GET", "/v1/webhook_endpoints"))).data).toEqual([]);
    const ep = await json(await create({ "x-a": "1" }));
    const refused = await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { headers: { "Service-Event": "x" }, description: "changed" } });
    expect(refused.status).toBe(400);
    expect(await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}`))).toMatchObject({ headers: { "x-a": "1" }, description: null });
  });
});

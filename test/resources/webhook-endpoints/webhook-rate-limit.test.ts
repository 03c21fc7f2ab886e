import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { testWorld, type TestWorld } from "../../support/engine";
import { TestReceiver } from "../../support/receiver";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import { deliveryLog, registerEndpoint, trigger } from "../../support/webhooks";

async function json(res: Response): Promise<any> {
  return res.json();
}

for (const kind of storageKinds()) {
  describe(`an endpoint's rate_limit over ${kind.name}`, () => {
    let w: TestWorld;
    let limited: TestReceiver;
    let other: TestReceiver;
    beforeEach(async () => {
      limited = await TestReceiver.start();
      other = await TestReceiver.start();
      w = await testWorld(kind, { delivery: createHttpDelivery({ allowPrivateNetworks: true }) });
    });
    afterEach(async () => {
      await w.close();
      await limited.close();
      await other.close();
    });

    it(`is set at create and update, "" removes it, and a bad value is refused and changes nothing`, async () => {
      const create = await w.request("POST", "/v1/webhook_endpoints", { body: { url: limited.url(), enabled_events: ["*"], rate_limit: 5 } });
      const ep = await json(create);
      expect(ep).toMatchObject({ rate_limit: 5 });
      expect(await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}`))).toMatchObject({ rate_limit: 5 });
      for (const bad of [0, -1, 1.5, "5", 10_001, true]) {
        const res = await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { rate_limit: bad } });
        expect(res.status, JSON.stringify(bad)).toBe(400);
        expect((await json(res)).error).toMatchObject({ code: "parameter_invalid", param: "rate_limit", type: "invalid_request_error" });
        const refused = await w.request("POST", "/v1/webhook_endpoints", { body: { url: limited.url(), enabled_events: ["*"], rate_limit: bad } });
        expect(refused.status).toBe(400);
      }
      expect((await json(await w.request("GET", "/v1/webhook_endpoints"))).data).toHaveLength(1);
      expect(await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { rate_limit: 10_000 } }))).toMatchObject({ rate_limit: 10_000 });
      expect(await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { description: "kept" } }))).toMatchObject({
        rate_limit: 10_000,
      });
      // null is a field not given, as everywhere; "" removes the limit
      expect(await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { rate_limit: null } }))).toMatchObject({ rate_limit: 10_000 });
      expect(await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { rate_limit: "" } }))).toMatchObject({ rate_limit: null });
      expect((await registerEndpoint(w, other.url())).rate_limit).toBeNull();
    });

    it("sends at most rate_limit attempts in any second, the rest deferred in no slot, while other endpoints go at once", async () => {
      const ep = await json(await w.request("POST", "/v1/webhook_endpoints", { body: { url: limited.url(), enabled_events: ["*"], rate_limit: 2 } }));
      const free = await registerEndpoint(w, other.url());
      const emitted: string[] = [];
      for (let i = 0; i < 7; i++) emitted.push((await trigger(w, "balance.updated")).id);
      const start = w.clock.now();
      await w.engine.worker.runDue();
      // the other endpoint got everything at once; the limited one its 2 of this second
      expect(other.requests).toHaveLength(7);
      expect(limited.requests).toHaveLength(2);
      // nothing of the limited endpoint holds a lease meanwhile: its items wait for the window
      const waiting = (await w.harness.inspect.work()).filter((job) => job.kind === "webhook.deliver");
      expect(waiting.length).toBeGreaterThan(0);
      // (items deferred to the next window, or items this process held back from its claims)
      expect(waiting.every((job) => job.leaseOwner === null && (job.runAt === start + 1_000 || job.attempts === 0))).toBe(true);
      // then 2 in each second that follows, and none sooner
      const perSecond = [limited.requests.length];
      for (let second = 1; limited.requests.length < 7 && second < 10; second++) {
        const before = limited.requests.length;
        w.clock.set(start + second * 1_000 - 1);
        await w.engine.worker.runDue();
        expect(limited.requests.length).toBe(before);
        w.clock.set(start + second * 1_000);
        await w.engine.worker.runDue();
        perSecond.push(limited.requests.length - before);
      }
      expect(perSecond).toEqual([2, 2, 2, 1]);
      // every event once, each under attempt 1: a deferral spends no attempt number
      const log = await deliveryLog(w, ep.id);
      expect(log.map((entry) => entry.event).sort()).toEqual([...emitted].sort());
      expect(log.every((entry) => entry.attempt === 1 && entry.status === "succeeded")).toBe(true);
      expect((await deliveryLog(w, free.id)).length).toBe(7);
    });
  });
}

afterAll(closeSharedStorage);

import Stripe from "stripe";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { verifyWebhookSignature } from "../../../src/events/signing";
import { testWorld, type TestWorld } from "../../support/engine";
import { TestReceiver, hang, ok, status } from "../../support/receiver";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import { deliveryLog, registerEndpoint, runNext, trigger } from "../../support/webhooks";
import { engineDeps } from "../../../src/engine/engine";
import { devPorts } from "../../../adapters/dev";

const TIMEOUT_MS = 300;

async function json(res: Response): Promise<any> {
  return res.json();
}

for (const kind of storageKinds()) {
  describe(`webhook delivery to real receivers over ${kind.name}`, () => {
    let w: TestWorld;
    let receiver: TestReceiver;
    beforeEach(async () => {
      receiver = await TestReceiver.start();
      w = await testWorld(kind, {
        delivery: createHttpDelivery({ allowPrivateNetworks: true }),
        // the tests step the clock to the next due item (`runNext`): each chain's reconciliation,
        // every hour by default, would be most of those steps
        config: { webhookTimeoutMs: TIMEOUT_MS, reconcileTestEveryMs: 365 * 24 * 3_600_000 },
      });
    });
    afterEach(async () => {
      await w.close();
      await receiver.close();
    });

    /** Verifies a received request's signature with the stripe package, as of the engine's clock. */
    const stripeVerifies = (req: { body: string; headers: Record<string, string> }, secret: string) =>
      Stripe.webhooks.constructEvent(req.body, req.headers["service-signature"]!, secret, 300, undefined, w.clock.now());

    it("delivers each event signed (the stripe package verifies it), with the documented headers, and logs it", async () => {
      const ep = await registerEndpoint(w, receiver.url());
      const event = await trigger(w, "payout.settled");
      await w.engine.worker.runDue();
      expect(receiver.requests).toHaveLength(1);
      const [req] = receiver.requests;
      expect(stripeVerifies(req!, ep.secret).id).toBe(event.id);
      expect(verifyWebhookSignature(req!.body, req!.headers["service-signature"], ep.secret, { now: w.clock.now() })).toEqual({
        valid: true,
        timestamp: Math.floor(w.clock.now() / 1000),
      });
      expect(req!.headers["service-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(req!.headers["service-event"]).toBe("payout.settled");
      expect(req!.headers["service-delivery"]).toMatch(/^dlv_[0-9a-z]{26}$/);
      expect(req!.headers["service-attempt"]).toBe("1");
      expect(req!.headers["content-type"]).toBe("application/json");
      // the body is the event exactly as the API shows it
      expect(JSON.parse(req!.body)).toEqual(await json(await w.request("GET", `/v1/events/${event.id}`)));
      const log = await deliveryLog(w, ep.id);
      expect(log).toEqual([
        {
          id: req!.headers["service-delivery"],
          object: "webhook_delivery",
          endpoint: ep.id,
          event: event.id,
          event_type: "payout.settled",
          attempt: 1,
          trigger: "scheduled",
          status: "succeeded",
          response_status: 200,
          latency_ms: expect.any(Number),
          error: null,
          created: "2026-01-01T00:00:00.000Z",
          next_attempt_at: null,
        },
      ]);
      await w.engine.worker.runDue();
      expect(receiver.requests).toHaveLength(1); // acknowledged: never sent again
    });

    it('sends only subscribed types, every type to ["*"], and nothing to a disabled or deleted endpoint', async () => {
      const other = await TestReceiver.start();
      const all = await TestReceiver.start();
      try {
        await registerEndpoint(w, receiver.url(), ["payout.settled"]);
        await registerEndpoint(w, all.url(), ["*"]);
        const off = await registerEndpoint(w, other.url(), ["*"]);
        await w.request("POST", `/v1/webhook_endpoints/${off.id}`, { body: { status: "disabled" } });
        await trigger(w, "payout.settled");
        await trigger(w, "swap.settled");
        await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "USDC", chain: "base", amount: "5" } });
        await w.engine.worker.runDue();
        expect(receiver.requests.map((r) => r.headers["service-event"])).toEqual(["payout.settled"]);
        // one endpoint's deliveries run side by side (up to its concurrency): no order among them
        expect(all.requests.map((r) => r.headers["service-event"]).sort()).toEqual(["balance.updated", "payout.settled", "swap.settled"]);
        expect(other.requests).toEqual([]);
        // deliveries queued for an endpoint that is deleted before they run are dropped
        const doomed = await registerEndpoint(w, other.url(), ["*"]);
        await trigger(w, "swap.failed");
        await w.request("DELETE", `/v1/webhook_endpoints/${doomed.id}`);
        await w.engine.worker.runDue();
        expect(other.requests).toEqual([]);
      } finally {
        await other.close();
        await all.close();
      }
    });

    it("retries a receiver that answers 500, then 200: attempt 2 carries the same event id", async () => {
      receiver.behave = (_, i) => (i === 0 ? status(500) : ok);
      const ep = await registerEndpoint(w, receiver.url());
      const event = await trigger(w, "swap.executing");
      await w.engine.worker.runDue();
      let log = await deliveryLog(w, ep.id);
      expect(log).toMatchObject([{ attempt: 1, status: "failed", response_status: 500, error: "HTTP 500" }]);
      const wait = Date.parse(log[0].next_attempt_at) - w.clock.now();
      expect(wait).toBeGreaterThanOrEqual(4_500);
      expect(wait).toBeLessThanOrEqual(5_500);
      w.clock.advance(wait - 1);
      await w.engine.worker.runDue();
      expect(receiver.requests).toHaveLength(1); // not before its time
      await runNext(w);
      expect(receiver.requests).toHaveLength(2);
      const [first, second] = receiver.requests;
      expect(second!.headers["service-attempt"]).toBe("2");
      expect(JSON.parse(second!.body).id).toBe(event.id);
      expect(second!.body).toBe(first!.body);
      expect(second!.headers["service-delivery"]).not.toBe(first!.headers["service-delivery"]);
      expect(second!.headers["service-signature"]).not.toBe(first!.headers["service-signature"]); // signed afresh
      expect(stripeVerifies(second!, ep.secret).id).toBe(event.id);
      log = await deliveryLog(w, ep.id);
      expect(log).toMatchObject([
        { attempt: 1, status: "failed", event: event.id },
        { attempt: 2, status: "succeeded", event: event.id, response_status: 200, next_attempt_at: null },
      ]);
    });

    it("disables the endpoint for good when its receiver answers 410 Gone", async () => {
      receiver.behave = () => status(410);
      const ep = await registerEndpoint(w, receiver.url());
      await trigger(w, "payout.created");
      await w.engine.worker.runDue();
      expect(await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}`))).toMatchObject({
        status: "disabled",
        disabled_reason: "gone",
      });
      expect(await deliveryLog(w, ep.id)).toMatchObject([{ attempt: 1, status: "failed", response_status: 410, next_attempt_at: null }]);
      receiver.behave = () => ok;
      await trigger(w, "payout.created");
      for (let i = 0; i < 5; i++) await runNext(w);
      expect(receiver.requests).toHaveLength(1);
      expect((await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { status: "enabled" } })).status).toBe(400);
    });

    it("cuts a receiver that hangs at the timeout and retries it", async () => {
      receiver.behave = (_, i) => (i === 0 ? hang : ok);
      const ep = await registerEndpoint(w, receiver.url());
      const event = await trigger(w, "limit_order.filled");
      await w.engine.worker.runDue();
      let log = await deliveryLog(w, ep.id);
      expect(log).toMatchObject([{ attempt: 1, status: "failed", response_status: null, error: `timeout after ${TIMEOUT_MS} ms` }]);
      expect(log[0].latency_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
      await runNext(w);
      log = await deliveryLog(w, ep.id);
      expect(log.map((l) => [l.attempt, l.status])).toEqual([
        [1, "failed"],
        [2, "succeeded"],
      ]);
      expect(receiver.requests.map((r) => JSON.parse(r.body).id)).toEqual([event.id, event.id]);
    });

    it("honours Retry-After on a 429, up to the slot after the next", async () => {
      receiver.behave = (_, i) => (i === 0 ? status(429, { "retry-after": "90" }) : i === 1 ? status(503, { "retry-after": "86400" }) : ok);
      const ep = await registerEndpoint(w, receiver.url());
      await trigger(w, "payout.failed");
      await w.engine.worker.runDue();
      const t1 = w.clock.now();
      let [entry] = await deliveryLog(w, ep.id);
      expect(Date.parse(entry.next_attempt_at) - t1).toBe(90_000);
      await runNext(w);
      const t2 = w.clock.now();
      entry = (await deliveryLog(w, ep.id))[1];
      // the second retry is due after ~5 min; a day's Retry-After is cut at the slot after it (~5 min + 30 min)
      const wait = Date.parse(entry.next_attempt_at) - t2;
      expect(wait).toBeGreaterThan(300_000 * 0.9 + 1_800_000 - 1);
      expect(wait).toBeLessThanOrEqual(Math.ceil(300_000 * 1.1 + 1_800_000));
      await runNext(w);
      expect((await deliveryLog(w, ep.id)).map((l) => l.status)).toEqual(["failed", "failed", "succeeded"]);
    });

    it("gives up after the eighth attempt, 24 hours after the first", async () => {
      receiver.behave = () => status(500);
      const ep = await registerEndpoint(w, receiver.url());
      await trigger(w, "payout.created");
      const start = w.clock.now();
      const pending = async () => (await w.harness.inspect.work()).some((j) => j.kind.startsWith("webhook."));
      for (let i = 0; i < 100 && (await pending()); i++) await runNext(w); // hourly housekeeping runs on the way
      const log = await deliveryLog(w, ep.id);
      expect(log.map((l) => l.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(Date.parse(log[7].created) - start).toBeLessThanOrEqual(24 * 3_600_000);
      expect(Date.parse(log[7].created) - start).toBeGreaterThan(22 * 3_600_000);
      expect(log[7].next_attempt_at).toBeNull();
      expect(receiver.requests).toHaveLength(8);
    });

    it("replays a window with the original event ids, refuses windows beyond 7 days", async () => {
      const ep = await registerEndpoint(w, receiver.url(), ["payout.created", "payout.settled"]);
      const sent = [];
      for (const type of ["payout.created", "swap.settled", "payout.settled"]) {
        sent.push(await trigger(w, type));
        w.clock.advance(60_000);
      }
      await w.engine.worker.runDue();
      expect(receiver.requests).toHaveLength(2);
      w.clock.advance(3_600_000);
      const res = await w.request("POST", `/v1/webhook_endpoints/${ep.id}/replay`, {
        body: { from: "2025-12-31T23:00:00Z", to: "2026-01-01T01:00:00Z" },
      });
      expect(res.status).toBe(202);
      expect(await json(res)).toEqual({
        object: "webhook_replay",
        endpoint: ep.id,
        from: "2025-12-31T23:00:00.000Z",
        to: "2026-01-01T01:00:00.000Z",
        event_count: 2,
      });
      await w.engine.worker.runDue();
      const replayed = receiver.requests.slice(2);
      expect(replayed.map((r) => JSON.parse(r.body).id).sort()).toEqual([sent[0]!.id, sent[2]!.id].sort());
      expect(replayed.every((r) => r.headers["service-attempt"] === "1")).toBe(true);
      for (const r of replayed) expect(stripeVerifies(r, ep.secret).type).toMatch(/^payout\./); // signed afresh, an hour later
      const triggers = (await deliveryLog(w, ep.id)).map((l) => `${l.trigger}:${l.event}`).sort();
      const expected = [sent[0]!.id, sent[2]!.id].flatMap((id) => [`replay:${id}`, `scheduled:${id}`]);
      expect(triggers).toEqual(expected.sort());

      const tooOld = await w.request("POST", `/v1/webhook_endpoints/${ep.id}/replay`, { body: { from: "2025-12-24T00:00:00Z" } });
      expect(tooOld.status).toBe(400);
      expect((await json(tooOld)).error).toMatchObject({ code: "replay_window_exceeded", param: "from" });
      const backwards = await w.request("POST", `/v1/webhook_endpoints/${ep.id}/replay`, {
        body: { from: "2026-01-01T00:30:00Z", to: "2026-01-01T00:10:00Z" },
      });
      expect((await json(backwards)).error).toMatchObject({ code: "parameter_invalid", param: "to" });
      const missing = await w.request("POST", `/v1/webhook_endpoints/we_01aaaaaaaaaaaaaaaaaaaaaaaa/replay`, {
        body: { from: "2026-01-01T00:00:00Z" },
      });
      expect(missing.status).toBe(404);
    });

    it("signs with both secrets for 24 hours after a rotation, then with the new one only", async () => {
      const ep = await registerEndpoint(w, receiver.url());
      const rotated = await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}/rotate_secret`));
      await trigger(w, "recipient.screening_updated");
      await w.engine.worker.runDue();
      const during = receiver.requests[0]!;
      expect(during.headers["service-signature"]!.split(",")).toHaveLength(3);
      expect(stripeVerifies(during, ep.secret).type).toBe("recipient.screening_updated");
      expect(stripeVerifies(during, rotated.secret).type).toBe("recipient.screening_updated");
      w.clock.advance(24 * 3_600_000);
      await trigger(w, "recipient.screening_updated");
      await w.engine.worker.runDue();
      const after = receiver.requests[1]!;
      expect(after.headers["service-signature"]!.split(",")).toHaveLength(2);
      expect(stripeVerifies(after, rotated.secret).type).toBe("recipient.screening_updated");
      expect(() => stripeVerifies(after, ep.secret)).toThrow();
    });

    it("keeps the delivery log 7 days", async () => {
      const ep = await registerEndpoint(w, receiver.url());
      await trigger(w, "payout.created");
      await w.engine.worker.runDue();
      expect(await deliveryLog(w, ep.id)).toHaveLength(1);
      w.clock.advance(7 * 24 * 3_600_000 + 3_600_000);
      await w.engine.worker.runDue();
      expect(await deliveryLog(w, ep.id)).toEqual([]);
      expect(await w.harness.inspect.deliveries(w.accountId)).toEqual([]);
    });

    it("lets no slow endpoint delay the others: a hanging receiver holds only its own slots", async () => {
      const fast = await TestReceiver.start();
      receiver.behave = () => hang;
      try {
        await registerEndpoint(w, receiver.url());
        await registerEndpoint(w, fast.url());
        for (let i = 0; i < 6; i++) await trigger(w, "balance.updated");
        const drained = w.engine.worker.runDue();
        await fast.received(6);
        // every fast delivery arrived while the slow endpoint's first attempts still hang
        expect(receiver.requests.length).toBeLessThanOrEqual(6);
        await drained;
        expect(fast.requests).toHaveLength(6);
        expect(receiver.requests).toHaveLength(6);
      } finally {
        await fast.close();
      }
    });
  });
}

describe("the 10 s acknowledgement limit and the lease that outlasts it", () => {
  it("cuts an attempt at 10 s by the engine's clock, and no second worker sends it meanwhile", async () => {
    const [memory] = storageKinds();
    const harness = await memory!.factory();
    const receiver = await TestReceiver.start();
    const { ManualClock } = await import("../../../adapters/clock");
    const { createEngine } = await import("../../../src/modules");
    const clock = new ManualClock();
    const ports = () => ({ ...devPorts({ clock }), delivery: createHttpDelivery({ allowPrivateNetworks: true, clock }) });
    const engine = await createEngine({ storage: harness.storage, ...ports() });
    const second = await createEngine({ storage: harness.storage, ...ports() });
    try {
      expect(engineDeps(engine).config.webhookTimeoutMs).toBe(10_000);
      const account = await engine.accounts.create({ name: "t" });
      const ctx = { accountId: account.id, livemode: false, requestId: null, idempotencyKey: null };
      const ep = (await engine.webhookEndpoints.create(ctx, { url: receiver.url(), enabled_events: ["*"] }))._unsafeUnwrap();
      receiver.behave = (_, i) => (i === 0 ? hang : ok);
      (await engine.testHelpers.triggerEvent(ctx, { type: "payout.created" }))._unsafeUnwrap();
      const inFlight = engine.worker.runDue();
      await receiver.received(1);
      clock.advance(9_999);
      expect(await second.worker.runDue()).toBe(0); // the attempt is leased past its timeout
      clock.advance(1);
      await inFlight;
      const log = (await engine.webhookDeliveries.list(ctx, ep.id, {}))._unsafeUnwrap().data;
      expect(log).toMatchObject([{ attempt: 1, status: "failed", error: "timeout after 10000 ms" }]);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await second.close();
      await engine.close();
      await receiver.close();
    }
  });
});

afterAll(closeSharedStorage);

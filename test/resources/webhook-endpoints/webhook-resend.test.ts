import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { testWorld, type TestWorld } from "../../support/engine";
import { TestReceiver, ok, status } from "../../support/receiver";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import { deliveryLog, registerEndpoint, trigger } from "../../support/webhooks";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function json(res: Response): Promise<any> {
  return res.json();
}

/** Runs every due item up to `t` on the manual clock, in order, then sets the clock to `t`. */
async function advanceTo(w: TestWorld, t: number): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    const next = await w.engine.storage.transaction((tx) => tx.work.nextRunAt());
    if (next === null || next > t) break;
    if (next > w.clock.now()) w.clock.set(next);
    await w.engine.worker.runDue();
  }
  if (t > w.clock.now()) w.clock.set(t);
  await w.engine.worker.runDue();
}

// memory, and a PostgreSQL server when there is one (PGlite runs the same SQL, slower)
for (const kind of storageKinds().filter((k) => k.name !== "pglite")) {
  describe(`resend, recover and endpoints that retire over ${kind.name}`, () => {
    let w: TestWorld;
    let receiver: TestReceiver;
    beforeEach(async () => {
      receiver = await TestReceiver.start();
      // days of the clock are stepped through item by item: the hourly reconciliation of each chain stays out of the way
      w = await testWorld(kind, {
        delivery: createHttpDelivery({ allowPrivateNetworks: true }),
        config: { webhookTimeoutMs: 300, reconcileTestEveryMs: 365 * 24 * 3_600_000 },
      });
    });
    afterEach(async () => {
      await w.close();
      await receiver.close();
    });

    it("resends one event to one endpoint with trigger manual, once per request (Idempotency-Key honoured)", async () => {
      const ep = await registerEndpoint(w, receiver.url(), ["payout.settled"]);
      const event = await trigger(w, "payout.settled");
      await w.engine.worker.runDue();
      expect(receiver.requests).toHaveLength(1);
      const headers = { "idempotency-key": "resend-1" };
      const res = await w.request("POST", `/v1/events/${event.id}/resend`, { body: { endpoint: ep.id }, headers });
      expect(res.status).toBe(202);
      expect(await json(res)).toEqual({ object: "webhook_resend", event: event.id, endpoint: ep.id });
      const again = await w.request("POST", `/v1/events/${event.id}/resend`, { body: { endpoint: ep.id }, headers });
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      await w.engine.worker.runDue();
      expect(receiver.requests.map((r) => JSON.parse(r.body).id)).toEqual([event.id, event.id]);
      const log = await deliveryLog(w, ep.id);
      expect(log.map((l) => [l.event, l.trigger, l.attempt, l.status])).toEqual([
        [event.id, "scheduled", 1, "succeeded"],
        [event.id, "manual", 1, "succeeded"],
      ]);
    });

    it("refuses to resend an unknown event, to an unknown, foreign, disabled or unsubscribed endpoint, and queues nothing", async () => {
      const ep = await registerEndpoint(w, receiver.url(), ["payout.settled"]);
      const event = await trigger(w, "payout.settled");
      const other = await trigger(w, "swap.settled");
      await w.engine.worker.runDue();
      const foreignAccount = await w.engine.accounts.create({ name: "Other" });
      const foreignKey = (await w.engine.accounts.createApiKey(foreignAccount.id))._unsafeUnwrap().key;
      const foreign = await json(await w.request("POST", "/v1/webhook_endpoints", { key: foreignKey, body: { url: receiver.url(), enabled_events: ["*"] } }));
      const off = await registerEndpoint(w, receiver.url(), ["*"]);
      await w.request("POST", `/v1/webhook_endpoints/${off.id}`, { body: { status: "disabled" } });
      const cases: [string, unknown, number, string, string][] = [
        ["evt_unknown", { endpoint: ep.id }, 404, "resource_missing", "id"],
        [event.id, { endpoint: "we_unknown" }, 404, "resource_missing", "endpoint"],
        [event.id, { endpoint: foreign.id }, 404, "resource_missing", "endpoint"],
        [event.id, { endpoint: off.id }, 400, "parameter_invalid", "endpoint"],
        [other.id, { endpoint: ep.id }, 400, "parameter_invalid", "endpoint"],
        [event.id, {}, 400, "parameter_missing", "endpoint"],
      ];
      for (const [id, body, code, errorCode, param] of cases) {
        const res = await w.request("POST", `/v1/events/${id}/resend`, { body });
        const answer = await json(res);
        expect([res.status, answer.error.code, answer.error.param], JSON.stringify(answer)).toEqual([code, errorCode, param]);
      }
      const before = receiver.requests.length;
      await w.engine.worker.runDue();
      expect(receiver.requests).toHaveLength(before);
    });

    it("filters the delivery log by event, and binds its cursors to the filter", async () => {
      const ep = await registerEndpoint(w, receiver.url(), ["*"]);
      const a = await trigger(w, "payout.settled");
      const b = await trigger(w, "payout.failed");
      await w.engine.worker.runDue();
      for (let i = 0; i < 2; i++) await w.request("POST", `/v1/events/${a.id}/resend`, { body: { endpoint: ep.id } });
      await w.engine.worker.runDue();
      const page = await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}/deliveries?event=${a.id}&limit=2`));
      expect(page.data.map((d: any) => d.event)).toEqual([a.id, a.id]);
      expect(page.has_more).toBe(true);
      const rest = await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}/deliveries?event=${a.id}&limit=2&starting_after=${page.next_cursor}`));
      expect(rest.data.map((d: any) => [d.event, d.trigger])).toEqual([[a.id, "scheduled"]]);
      const swapped = await w.request("GET", `/v1/webhook_endpoints/${ep.id}/deliveries?event=${b.id}&limit=2&starting_after=${page.next_cursor}`);
      expect(swapped.status).toBe(400);
      expect((await json(swapped)).error.code).toBe("cursor_invalid");
      const onlyB = await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}/deliveries?event=${b.id}`));
      expect(onlyB.data.map((d: any) => d.event)).toEqual([b.id]);
    });

    it("disables an endpoint answering 500 for the disable window, tells the other endpoints, and recover after re-enabling delivers exactly the failed events", async () => {
      const watcher = await TestReceiver.start();
      try {
        const start = w.clock.now();
        const ep = await registerEndpoint(w, receiver.url(), ["payout.settled"]);
        await registerEndpoint(w, watcher.url(), ["webhook_endpoint.disabled"]);
        // the first event is acknowledged; from the second on, every attempt fails
        const acknowledged = await trigger(w, "payout.settled");
        await w.engine.worker.runDue();
        receiver.behave = () => status(500);
        const failed: string[] = [];
        let t = start;
        while ((await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}`))).status === "enabled") {
          expect(t - start).toBeLessThanOrEqual(5 * DAY + 12 * HOUR);
          failed.push((await trigger(w, "payout.settled")).id);
          t += 12 * HOUR;
          await advanceTo(w, t);
        }
        const disabledAt = w.clock.now();
        const endpoint = await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}`));
        expect(endpoint).toMatchObject({ status: "disabled", disabled_reason: "failing" });
        // disabled by the first attempt 5 days or more after the first failure, not before
        const log = await deliveryLog(w, ep.id);
        const firstFailure = Date.parse(log.find((l) => l.status === "failed").created);
        const lastAttempt = Date.parse(log[log.length - 1].created);
        expect(lastAttempt - firstFailure).toBeGreaterThanOrEqual(5 * DAY);
        expect(log.filter((l) => Date.parse(l.created) < firstFailure + 5 * DAY).every((l) => l.status === "failed" || l.event === acknowledged.id)).toBe(true);
        // the engine's change, audited
        const [record] = (await json(await w.request("GET", "/v1/audit_log?action=webhook_endpoint.disabled"))).data;
        expect(record).toMatchObject({
          actor: { type: "engine" },
          resource: { type: "webhook_endpoint", id: ep.id },
          changes: { disabled_reason: { from: null, to: "failing" }, status: { from: "enabled", to: "disabled" } },
        });
        // the account's other endpoint hears of it
        const told = watcher.requests.map((r) => JSON.parse(r.body));
        expect(told.map((e) => [e.type, e.data.object.id, e.data.object.disabled_reason])).toEqual([["webhook_endpoint.disabled", ep.id, "failing"]]);
        // nothing more goes to it while disabled: new events, and the retries that fall due meanwhile
        const whileOff = await trigger(w, "payout.settled");
        const sentBefore = receiver.requests.length;
        await advanceTo(w, disabledAt + 25 * HOUR);
        expect(receiver.requests).toHaveLength(sentBefore);
        expect((await w.request("POST", `/v1/webhook_endpoints/${ep.id}/recover`, { body: { since: new Date(start).toISOString() } })).status).toBe(400);

        // its owner enables it again: it receives new events, then recovers exactly what failed
        receiver.behave = () => ok;
        const enabled = await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { status: "enabled" } }));
        expect(enabled).toMatchObject({ status: "enabled", disabled_reason: null });
        receiver.requests.length = 0;
        // while it no longer subscribes to their type, none of them is sent again (as replay and resend)
        await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { enabled_events: ["payout.failed"] } });
        const unsubscribed = await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}/recover`, { body: { since: new Date(start).toISOString() } }));
        expect(unsubscribed.event_count).toBe(0);
        await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { enabled_events: ["payout.settled"] } });
        const res = await w.request("POST", `/v1/webhook_endpoints/${ep.id}/recover`, { body: { since: new Date(start).toISOString() } });
        const recovery = await json(res);
        expect([res.status, recovery]).toEqual([
          202,
          { object: "webhook_recovery", endpoint: ep.id, since: new Date(start).toISOString(), event_count: failed.length },
        ]);
        await w.engine.worker.runDue();
        const received = receiver.requests.map((r) => JSON.parse(r.body).id);
        expect([...received].sort()).toEqual([...failed].sort());
        expect(received).not.toContain(acknowledged.id);
        expect(received).not.toContain(whileOff.id);
        expect(receiver.requests.every((r) => r.headers["service-attempt"] === "1")).toBe(true);
        // recovered: a second recover finds nothing left to send
        const second = await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}/recover`, { body: { since: new Date(start).toISOString() } }));
        expect(second.event_count).toBe(0);
      } finally {
        await watcher.close();
      }
    });

    it("an endpoint that succeeds once within the window starts its window afresh", async () => {
      await w.close();
      w = await testWorld(kind, {
        delivery: createHttpDelivery({ allowPrivateNetworks: true }),
        config: { webhookTimeoutMs: 300, webhookDisableAfterMs: 2 * HOUR },
      });
      const ep = await registerEndpoint(w, receiver.url(), ["payout.settled"]);
      const start = w.clock.now();
      receiver.behave = () => status(500);
      const state = async () => (await json(await w.request("GET", `/v1/webhook_endpoints/${ep.id}`))).disabled_reason;
      // 90 minutes of failures, one success, 90 more: never 2 hours of failure in a row
      for (let m = 0; m <= 180; m += 30) {
        receiver.behave = () => (m === 90 ? ok : status(500));
        await trigger(w, "payout.settled");
        await advanceTo(w, start + m * 60_000 + 60_000);
        expect(await state(), `at minute ${m}`).toBeNull();
      }
      // a failure 2 hours or more after the first failure since that success (at minute 120 at the latest) disables it
      await advanceTo(w, start + 240 * 60_000);
      await trigger(w, "payout.settled");
      await w.engine.worker.runDue();
      expect(await state()).toBe("failing");
      // enabled again, its window starts afresh: the next failure does not disable it
      const reenabled = await json(await w.request("POST", `/v1/webhook_endpoints/${ep.id}`, { body: { status: "enabled" } }));
      expect(reenabled.status).toBe("enabled");
      await trigger(w, "payout.settled");
      await w.engine.worker.runDue();
      expect(await state()).toBeNull();
    });

    it("refuses a recover outside the delivery log's window or in the future, and of a foreign endpoint", async () => {
      const ep = await registerEndpoint(w, receiver.url(), ["*"]);
      const now = w.clock.now();
      const cases: [unknown, number, string][] = [
        [{ since: new Date(now - 8 * DAY).toISOString() }, 400, "replay_window_exceeded"],
        [{ since: new Date(now + HOUR).toISOString() }, 400, "parameter_invalid"],
        [{ since: "yesterday" }, 400, "parameter_invalid"],
        [{}, 400, "parameter_missing"],
      ];
      for (const [body, code, errorCode] of cases) {
        const res = await w.request("POST", `/v1/webhook_endpoints/${ep.id}/recover`, { body });
        expect([res.status, (await json(res)).error.code]).toEqual([code, errorCode]);
      }
      const missing = await w.request("POST", "/v1/webhook_endpoints/we_unknown/recover", { body: { since: new Date(now).toISOString() } });
      expect(missing.status).toBe(404);
    });
  });
}

afterAll(closeSharedStorage);

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { createHttpDelivery } from "../../../adapters/delivery";
import { devPorts } from "../../../adapters/dev";
import { WEBHOOK_DELIVERY, WEBHOOK_FANOUT } from "../../../src/events/delivery-work";
import { engineModuleDeps } from "../../../src/engine/engine";
import { createEngine } from "../../../src/modules";
import { NO_OBSERVER, type EngineObserver } from "../../../src/ports/observer";
import { DeliveryFanOut } from "../../../src/resources/webhook-endpoints/delivery-fan-out";
import { toJob } from "../../../src/workers/due-work";
import { testWorld, type TestWorld } from "../../support/engine";
import { TestReceiver, ok, status } from "../../support/receiver";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import { attemptsOfDyingWorker, deliveryLog, emitTogether, registerEndpoint, runNext, trigger } from "../../support/webhooks";

/**
 * Delivery items that carry several events (one fan-out's events to one endpoint): each event's
 * outcome is its own (a failure goes on alone, with its own attempt number and schedule), a 410
 * stops the item and the endpoint, a worker that dies between sending and recording leaves
 * events that are sent again, items stored before batching still run, an item never outlives
 * its lease, and one endpoint never has more attempts in flight than its limit, whoever sends.
 */
for (const kind of storageKinds()) {
  describe(`webhook delivery items of several events over ${kind.name}`, () => {
    let w: TestWorld;
    let receiver: TestReceiver;
    /** Delivery items run, by how they ended. */
    let items: string[];
    const observer: EngineObserver = {
      ...NO_OBSERVER,
      workCompleted: (o) => {
        if (o.kind === WEBHOOK_DELIVERY.kind) items.push(o.outcome);
      },
    };
    beforeEach(async () => {
      items = [];
      receiver = await TestReceiver.start();
      w = await testWorld(kind, { delivery: createHttpDelivery({ allowPrivateNetworks: true }), config: { webhookTimeoutMs: 2_000 }, observer });
      await w.engine.worker.runDue(); // housekeeping
      items = [];
    });
    afterEach(async () => {
      await w.close();
      await receiver.close();
    });

    const eventOf = (req: { body: string }) => JSON.parse(req.body).id as string;

    it("sends one transaction's events in one item, each signed afresh; a 500 goes on alone with attempt 2 on its own schedule", async () => {
      const ep = await registerEndpoint(w, receiver.url());
      const ids = await emitTogether(w, ["payout.created", "payout.settled", "swap.settled", "limit_order.filled"]);
      const failing = ids[2]!;
      receiver.behave = (req) => (eventOf(req) === failing && !receiver.requests.some((r) => eventOf(r) === failing) ? status(500) : ok);
      await w.engine.worker.runDue();
      expect(items).toEqual(["settled"]); // one item carried all four
      expect(receiver.requests.map(eventOf)).toEqual(ids); // in order, one after the other
      expect(receiver.requests.every((r) => r.headers["service-attempt"] === "1")).toBe(true);
      expect(new Set(receiver.requests.map((r) => r.headers["service-delivery"])).size).toBe(4);
      let log = await deliveryLog(w, ep.id);
      expect(log.map((l) => [l.event, l.attempt, l.status])).toEqual(ids.map((id) => [id, 1, id === failing ? "failed" : "succeeded"]));
      const retry = log.find((l) => l.event === failing);
      const wait = Date.parse(retry.next_attempt_at) - w.clock.now();
      expect(wait).toBeGreaterThanOrEqual(4_500);
      expect(wait).toBeLessThanOrEqual(5_500);
      expect(log.filter((l) => l.next_attempt_at !== null)).toHaveLength(1);

      items = [];
      w.clock.advance(wait - 1);
      await w.engine.worker.runDue();
      expect(receiver.requests).toHaveLength(4); // not before its slot
      await runNext(w);
      expect(items).toEqual(["settled"]);
      const again = receiver.requests.slice(4);
      expect(again.map((r) => [eventOf(r), r.headers["service-attempt"]])).toEqual([[failing, "2"]]);
      expect(again[0]!.body).toBe(receiver.requests[2]!.body);
      expect(again[0]!.headers["service-signature"]).not.toBe(receiver.requests[2]!.headers["service-signature"]);
      log = await deliveryLog(w, ep.id);
      expect(log.filter((l) => l.event === failing).map((l) => [l.attempt, l.status, l.trigger])).toEqual([
        [1, "failed", "scheduled"],
        [2, "succeeded", "scheduled"],
      ]);
      await runNext(w);
      expect(receiver.requests).toHaveLength(5);
    });

    it("stops an item at a 410: the endpoint is gone, the rest of the item and everything after it is dropped", async () => {
      const ep = await registerEndpoint(w, receiver.url());
      const other = await TestReceiver.start();
      try {
        await registerEndpoint(w, other.url());
        const ids = await emitTogether(w, ["payout.created", "payout.leg.broadcast", "payout.settled", "swap.settled", "swap.failed"]);
        receiver.behave = (_, i) => (i >= 2 ? status(410) : ok);
        await w.engine.worker.runDue();
        expect(receiver.requests.map(eventOf)).toEqual(ids.slice(0, 3));
        expect(other.requests.map(eventOf)).toEqual(ids); // the other endpoint's item is its own
        expect((await deliveryLog(w, ep.id)).map((l) => [l.status, l.response_status, l.next_attempt_at])).toEqual([
          ["succeeded", 200, null],
          ["succeeded", 200, null],
          ["failed", 410, null],
        ]);
        expect(await (await w.request("GET", `/v1/webhook_endpoints/${ep.id}`)).json()).toMatchObject({ status: "disabled", disabled_reason: "gone" });
        expect((await w.harness.inspect.work()).filter((j) => j.kind === WEBHOOK_DELIVERY.kind)).toEqual([]);
        await emitTogether(w, ["payout.created", "payout.settled"]);
        for (let i = 0; i < 3; i++) await runNext(w);
        expect(receiver.requests).toHaveLength(3);
        expect(other.requests).toHaveLength(7);
      } finally {
        await other.close();
      }
    });

    it("sends again what a worker sent but died before recording, under the next attempt number", async () => {
      const ep = await registerEndpoint(w, receiver.url());
      await w.engine.worker.runDue(); // the fan-outs of the audit log's events, so the claim below takes the one of these events
      const ids = await emitTogether(w, ["payout.created", "payout.settled", "swap.settled"]);
      const claim = (owner: string, kind: string, leaseMs = 60_000) =>
        w.engine.storage.claimDueWork({ now: w.clock.now(), limit: 1, leaseMs, owner, onlyKinds: [kind], groupLimit: 16 });
      const [fanout] = await claim("wrk_fan", WEBHOOK_FANOUT.kind);
      await new DeliveryFanOut(engineModuleDeps(w.engine)).fanOut(toJob(WEBHOOK_FANOUT, fanout!, engineModuleDeps(w.engine).parse));
      // a worker claims the item, sends every attempt, and dies before it records them
      const [job] = await claim("wrk_dead", WEBHOOK_DELIVERY.kind);
      const dying = createHttpDelivery({ allowPrivateNetworks: true });
      for (const attempt of await attemptsOfDyingWorker(w, job!)) await dying.send(attempt.request);
      await dying.close();
      expect(receiver.requests.map((r) => [eventOf(r), r.headers["service-attempt"]])).toEqual(ids.map((id) => [id, "1"]));

      await w.engine.worker.runDue();
      expect(receiver.requests).toHaveLength(3); // the dead worker's lease still holds
      w.clock.advance(60_000);
      await w.engine.worker.runDue();
      expect(receiver.requests.slice(3).map((r) => [eventOf(r), r.headers["service-attempt"]])).toEqual(ids.map((id) => [id, "2"]));
      // the log has what a live worker recorded; the dead worker's attempts are the only ones missing
      expect((await deliveryLog(w, ep.id)).map((l) => [l.event, l.attempt, l.status])).toEqual(ids.map((id) => [id, 2, "succeeded"]));
      expect((await w.harness.inspect.work()).filter((j) => j.kind.startsWith("webhook."))).toEqual([]);
    });

    it("runs an item stored before deliveries were batched (one event, its attempt the claim count)", async () => {
      const ep = await registerEndpoint(w, receiver.url());
      const event = await trigger(w, "payout.settled");
      receiver.behave = () => status(503);
      await w.engine.worker.runDue(); // the new shape's first attempt; its retry waits 5 s
      receiver.behave = () => ok;
      const old = {
        id: "job_01kdvdna00aaaaaaaaaaaaaaaa",
        kind: WEBHOOK_DELIVERY.kind,
        accountId: w.accountId,
        livemode: false,
        payload: { endpoint: ep.id, event: event.id, trigger: "replay" },
        runAt: w.clock.now(),
        leaseOwner: null,
        leaseUntil: null,
        attempts: 0,
        lastError: null,
        status: "ready" as const,
        dedupeKey: null,
        group: ep.id,
        created: w.clock.now(),
      };
      await w.engine.storage.transaction((tx) => tx.work.enqueue([old]));
      // a worker of the old engine claimed it once and died
      await w.engine.storage.claimDueWork({
        now: w.clock.now(),
        limit: 1,
        leaseMs: 1_000,
        owner: "wrk_old",
        onlyKinds: [WEBHOOK_DELIVERY.kind],
        groupLimit: 16,
      });
      w.clock.advance(1_000);
      await w.engine.worker.runDue();
      const replayed = receiver.requests.filter((r) => r.headers["service-attempt"] === "2" && eventOf(r) === event.id);
      expect(replayed.length).toBeGreaterThanOrEqual(1);
      const log = await deliveryLog(w, ep.id);
      expect(log.filter((l) => l.trigger === "replay").map((l) => [l.event, l.attempt, l.status])).toEqual([[event.id, 2, "succeeded"]]);
      expect((await w.harness.inspect.work()).filter((j) => j.id === old.id)).toEqual([]);
    });

    it("starts no attempt that could outlast the item's lease: the rest goes on in a new item, same attempt number", async () => {
      const ep = await registerEndpoint(w, receiver.url());
      const ids = await emitTogether(w, ["payout.created", "payout.leg.broadcast", "payout.settled", "swap.settled"]);
      // each answer takes 20 s of the engine's time: after two, the next could end past the 60 s lease
      receiver.behave = () => {
        w.clock.advance(20_000);
        return ok;
      };
      await w.engine.worker.runDue();
      expect(receiver.requests.map((r) => [eventOf(r), r.headers["service-attempt"]])).toEqual(ids.map((id) => [id, "1"]));
      expect(items).toEqual(["settled", "settled"]);
      expect((await deliveryLog(w, ep.id)).map((l) => [l.event, l.attempt, l.status])).toEqual(ids.map((id) => [id, 1, "succeeded"]));
    });

    it("keeps each endpoint under its limit of attempts in flight with two engines sending", async () => {
      let inFlight = new Map<string, number>();
      const most = new Map<string, number>();
      const server = createServer((req, res) => {
        const path = req.url ?? "";
        inFlight.set(path, (inFlight.get(path) ?? 0) + 1);
        most.set(path, Math.max(most.get(path) ?? 0, inFlight.get(path)!));
        req.resume();
        req.on("end", () =>
          setTimeout(() => {
            inFlight.set(path, inFlight.get(path)! - 1);
            res.writeHead(200).end();
          }, 5),
        );
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const clock = new ManualClock(w.clock.now());
      const config = { webhookEndpointConcurrency: 3, webhookConcurrency: 8 };
      const make = () =>
        createEngine({ storage: w.harness.storage, ...devPorts({ clock }), delivery: createHttpDelivery({ allowPrivateNetworks: true }), config });
      const [a, b] = [await make(), await make()];
      try {
        const ctx = w.ctx;
        for (const path of ["/a", "/b"]) (await a.webhookEndpoints.create(ctx, { url: base + path, enabled_events: ["*"] }))._unsafeUnwrap();
        const sent: string[] = [];
        for (let t = 0; t < 12; t++) sent.push(...(await emitTogether(w, ["payout.created", "payout.settled", "swap.settled", "balance.updated"])));
        const left = async () => (await w.harness.inspect.work()).filter((j) => j.kind.startsWith("webhook.")).length;
        while ((await left()) > 0) await Promise.all([a.worker.runDue(), b.worker.runDue()]);
        expect(most.get("/a")).toBeLessThanOrEqual(3);
        expect(most.get("/b")).toBeLessThanOrEqual(3);
        const logged = await w.harness.inspect.deliveries(w.accountId);
        for (const endpoint of new Set(logged.map((l) => l.endpointId))) {
          expect(new Set(logged.filter((l) => l.endpointId === endpoint && l.status === "succeeded").map((l) => l.eventId))).toEqual(new Set(sent));
        }
        expect(new Set(logged.map((l) => l.endpointId)).size).toBe(2);
      } finally {
        await a.close();
        await b.close();
        inFlight = new Map();
        await new Promise<void>((r) => server.close(() => r()));
      }
    });
  });
}

afterAll(closeSharedStorage);

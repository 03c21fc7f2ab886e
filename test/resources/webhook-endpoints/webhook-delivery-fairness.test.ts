import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { ManualClock } from "../../../adapters/clock";
import { systemContext } from "../../../src/engine/context";
import { testWorld, type TestWorld } from "../../support/engine";
import { TestReceiver, hang } from "../../support/receiver";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import { trigger } from "../../support/webhooks";

/** Each attempt's deadline: receivers that hang hold their slot this long (on the world's manual clock: all test long). */
const HANG_MS = 15_000;
const SLOTS = 64;
const SLOW_ENDPOINTS = 8;
const SLOW_EVENTS = 12;

/** Resolves when `p` does, or rejects after `ms` of real time (a fair scheduler needs a few milliseconds). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

for (const kind of storageKinds()) {
  describe(`fair delivery across accounts over ${kind.name}`, () => {
    let w: TestWorld;
    let slow: TestReceiver;
    let fast: TestReceiver;
    beforeEach(async () => {
      slow = await TestReceiver.start();
      fast = await TestReceiver.start();
      slow.behave = () => hang;
      const clock = new ManualClock();
      w = await testWorld(kind, {
        clock,
        // attempts are cut by the world's clock, which stands still: hanging receivers hang until the test ends
        delivery: createHttpDelivery({ allowPrivateNetworks: true, clock }),
        config: { webhookTimeoutMs: HANG_MS, webhookConcurrency: SLOTS },
      });
    });
    afterEach(async () => {
      await slow.close(); // the hanging attempts fail, and the rest of the backlog is refused at once
      await fast.close();
      await w.engine.worker.runDue();
      await w.close();
    });

    it("delivers an account's event while another account's 8 endpoints hang with a backlog", async () => {
      // account A: 8 `*` endpoints whose receivers never answer, and a backlog of 30 events each
      for (let i = 0; i < SLOW_ENDPOINTS; i++) {
        (await w.engine.webhookEndpoints.create(w.ctx, { url: slow.url(`/a${i}`), enabled_events: ["*"] }))._unsafeUnwrap();
      }
      for (let i = 0; i < SLOW_EVENTS; i++) await trigger(w, "balance.updated");
      // account B: one endpoint on a receiver that answers at once
      const b = await w.engine.accounts.create({ name: "B" });
      const ctxB = systemContext(b.id, false);
      const endpointB = (await w.engine.webhookEndpoints.create(ctxB, { url: fast.url("/b"), enabled_events: ["*"] }))._unsafeUnwrap();

      const drained = w.engine.worker.runDue();
      // A takes its share of the lane's slots, half of them (16 per endpoint would allow 128), and hangs there
      await within(slow.received(SLOTS / 2), 30_000, "A's first attempts");
      const started = performance.now();
      const event = (await w.engine.testHelpers.triggerEvent(ctxB, { type: "payout.created" }))._unsafeUnwrap();
      await within(fast.received(1), 30_000, "B's delivery");
      const latencyMs = performance.now() - started;
      console.log(
        `${kind.name}: B's event reached its receiver ${latencyMs.toFixed(0)} ms after it was emitted, A's ${slow.requests.length} attempts still hanging`,
      );

      expect(JSON.parse(fast.requests[0]!.body).id).toBe(event.id);
      expect(fast.requests[0]!.path).toBe("/b");
      // A still holds exactly its share, every attempt of it unanswered
      expect(slow.requests).toHaveLength(SLOTS / 2);
      expect(slow.requests.every((r) => r.answered === "hang")).toBe(true);
      // and B's attempt is logged as succeeded while A's still hang
      const logged = async () => (await w.engine.webhookDeliveries.list(ctxB, endpointB.id, {}))._unsafeUnwrap().data;
      await within(
        (async () => {
          while (!(await logged()).length) await new Promise((r) => setTimeout(r, 5));
        })(),
        30_000,
        "B's log entry",
      );
      expect(await logged()).toMatchObject([{ event: event.id, status: "succeeded", attempt: 1 }]);
      expect(slow.requests).toHaveLength(SLOTS / 2);
      await slow.close();
      await drained;
      // once A's receivers are gone, its attempts fail and go on to their retries: nothing lost
      expect(slow.requests.length).toBeGreaterThanOrEqual(SLOTS / 2);
    });
  });
}

afterAll(closeSharedStorage);

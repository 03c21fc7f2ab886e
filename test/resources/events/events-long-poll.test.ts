import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engineDeps } from "../../../src/engine/engine";
import { testWorld, type TestWorld } from "../../support/engine";
import { storageKinds } from "../../support/storage";

const memory = storageKinds().find((k) => k.name === "memory")!;

/** `GET /v1/events?wait=…`: the long-poll `payrail listen` and `events tail` use. */
describe("events list with wait", () => {
  let w: TestWorld;
  beforeEach(async () => {
    w = await testWorld(memory);
  });
  afterEach(() => w.close());

  const since = () => new Date(w.clock.now() + 1).toISOString();
  const settled = <T>(p: Promise<T>) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 50))]);

  it("holds an empty answer until an event matches, then answers with it at once", async () => {
    const waiting = w.request("GET", `/v1/events?created_gte=${since()}&wait=20`);
    expect(await settled(waiting)).toBe(false);
    w.clock.advance(5);
    const triggered = await (await w.request("POST", "/v1/test_helpers/events/trigger", { body: { type: "swap.settled" } })).json();
    const res = await waiting;
    expect(res.status).toBe(200);
    expect((await res.json()).data.map((e: any) => e.id)).toEqual([triggered.id]);
  });

  it("answers at once when events match, and empty when the wait runs out", async () => {
    await w.request("POST", "/v1/test_helpers/events/trigger", { body: { type: "swap.settled" } });
    const now = await w.request("GET", "/v1/events?type=swap.settled&wait=20");
    expect((await now.json()).data).toHaveLength(1);
    const waiting = w.request("GET", `/v1/events?created_gte=${since()}&wait=3`);
    expect(await settled(waiting)).toBe(false); // the request is waiting now (its deadline is set)
    w.clock.advance(2_000);
    expect(await settled(waiting)).toBe(false);
    w.clock.advance(1_000);
    expect(await (await waiting).json()).toMatchObject({ data: [], has_more: false });
  });

  it("finds an event another process committed (no wake here) within a second", async () => {
    const waiting = w.request("GET", `/v1/events?created_gte=${since()}&type=payout.settled&wait=20`);
    expect(await settled(waiting)).toBe(false);
    w.clock.advance(5);
    // written straight to storage, as another engine process sharing the database would
    await w.engine.storage.transaction((tx) =>
      tx.events.insert([
        {
          accountId: w.accountId,
          id: engineDeps(w.engine).ids.next("evt"),
          type: "payout.settled",
          created: w.clock.now(),
          livemode: false,
          data: { object: { id: "po_elsewhere" } },
          request: { id: null, idempotency_key: null },
        },
      ]),
    );
    expect(await settled(waiting)).toBe(false);
    w.clock.advance(1_000);
    expect((await (await waiting).json()).data[0].data.object.id).toBe("po_elsewhere");
  });

  it("answers a waiting list when the engine closes", async () => {
    const waiting = w.request("GET", `/v1/events?created_gte=${since()}&wait=30`);
    expect(await settled(waiting)).toBe(false);
    w.engine.stopWaiting();
    expect((await (await waiting).json()).data).toEqual([]);
  });

  it("refuses a wait beyond 30 seconds", async () => {
    const res = await w.request("GET", "/v1/events?wait=31");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: "parameter_invalid", param: "wait" });
  });
});

describe("trigger overrides", () => {
  let w: TestWorld;
  beforeEach(async () => {
    w = await testWorld(memory);
  });
  afterEach(() => w.close());

  it("applies overrides to the sample, and refuses a bad one with nothing emitted", async () => {
    const res = await w.request("POST", "/v1/test_helpers/events/trigger", {
      body: { type: "limit_order.filled", overrides: { id: "lo_x", "filled.to_amount": "1.5", partial_fills: "false", fills: '[{"id":"fil_1"}]' } },
    });
    expect(res.status).toBe(200);
    const object = (await res.json()).data.object;
    expect(object).toMatchObject({ id: "lo_x", filled: { to_amount: "1.5" }, partial_fills: false, fills: [{ id: "fil_1" }] });
    for (const [overrides, message] of [
      [{ "filled.nope": "1" }, "The sample object has no field filled.nope"],
      [{ partial_fills: "yes" }, "partial_fills takes a boolean"],
      [{ fills: "{}" }, "fills takes a JSON array"],
      [{ "a..b": "1" }, "a..b is not a dotted path"],
      [{ "fills.5.id": "x" }, "The sample object has no field fills.5.id"],
    ] as const) {
      const bad = await w.request("POST", "/v1/test_helpers/events/trigger", { body: { type: "limit_order.filled", overrides } });
      expect(bad.status).toBe(400);
      const error = (await bad.json()).error;
      expect(error.code).toBe("parameter_invalid");
      expect(error.message).toContain(message);
      expect(error.param).toBe(`overrides.${Object.keys(overrides)[0]}`);
    }
    expect((await (await w.request("GET", "/v1/events?type=limit_order.filled")).json()).data).toHaveLength(1);
  });
});

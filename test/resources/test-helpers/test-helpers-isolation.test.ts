import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { ManualClock } from "../../../adapters/clock";
import { requestFingerprint } from "../../../src/engine/idempotency";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * Issue 27: one account's `chains/…/reorg` reverted another account's succeeded payment intent
 * and took its credit back; replays of the pay helper answered `null` and of events/trigger a
 * bare event id; and a pay killed mid-call and retried with its key paid twice.
 */
const json = (res: Response): Promise<any> => res.json();

/** Simulated chains whose next `pay` dies once the deposit is kept: a process killed mid-call. */
class CrashingChains extends SimulatedChains {
  crashAfterPay = false;
  override async pay(transfer: Parameters<SimulatedChains["pay"]>[0]) {
    const paid = await super.pay(transfer);
    if (this.crashAfterPay) {
      this.crashAfterPay = false;
      throw new Error("killed after the deposit");
    }
    return paid;
  }
}

for (const kind of storageKinds()) {
  describe(`test helpers act on the calling account only, once per key, on ${kind.name}`, () => {
    let w: TestWorld;
    let chains: CrashingChains;
    let keyB: string;
    let n = 0;
    beforeEach(async () => {
      const harness = await kind.factory();
      const clock = new ManualClock();
      // the simulated world in the engine's storage, as `npm start` keeps it
      chains = new CrashingChains({ clock, storage: harness.storage });
      w = await testWorld(kind, { harness, clock, chainAdapters: [chains] });
      const b = await w.engine.accounts.create({ name: "Other" });
      keyB = (await w.engine.accounts.createApiKey(b.id))._unsafeUnwrap().key;
    });
    afterEach(() => w.close());

    const post = (path: string, body: unknown, key?: string, idem = `k-${n++}`) =>
      w.request("POST", path, { body, headers: { "Idempotency-Key": idem }, ...(key ? { key } : {}) });
    const get = async (path: string, key?: string) => json(await w.request("GET", path, key ? { key } : {}));
    const intent = async (key?: string) => json(await post("/v1/payment_intents", { amount: "25", asset: "USDC", chains: ["base"] }, key));
    const usdc = async (key?: string) => (await get("/v1/balances", key)).data.find((b: any) => b.asset === "USDC");

    it("a reorg or an advance by account A never touches B's payment intent or balance", async () => {
      const a = await intent();
      const b = await intent(keyB);
      expect((await post(`/v1/test_helpers/payment_intents/${a.id}/pay`, { chain: "base", amount: "25" })).status).toBe(200);
      expect((await post(`/v1/test_helpers/payment_intents/${b.id}/pay`, { chain: "base", amount: "25" }, keyB)).status).toBe(200);

      // A mines: only A's deposit becomes final
      await post("/v1/test_helpers/chains/base/advance", { blocks: 6 });
      expect((await get(`/v1/payment_intents/${a.id}`)).status).toBe("succeeded");
      expect((await get(`/v1/payment_intents/${b.id}`, keyB)).status).toBe("processing");
      expect(await usdc(keyB)).toMatchObject({ available: "0", pending: "25" });

      await post("/v1/test_helpers/chains/base/advance", { blocks: 6 }, keyB);
      expect((await get(`/v1/payment_intents/${b.id}`, keyB)).status).toBe("succeeded");
      expect(await usdc(keyB)).toMatchObject({ available: "25", pending: "0" });

      // A's reorganisation takes A's deposit back, and nothing of B's
      const reorg = await json(await post("/v1/test_helpers/chains/base/reorg", { depth: 20 }));
      expect(reorg).toMatchObject({ object: "test_chain", chain: "base", reorganized: 1 });
      expect((await get(`/v1/payment_intents/${a.id}`)).status).toBe("reverted");
      expect(await usdc()).toMatchObject({ available: "0", pending: "0" });
      expect((await get(`/v1/payment_intents/${b.id}`, keyB)).status).toBe("succeeded");
      expect(await usdc(keyB)).toMatchObject({ available: "25", pending: "0" });
      expect((await get("/v1/events?type=payment_intent.reverted", keyB)).data).toEqual([]);

      // B's own reorganisation still reaches B
      expect(await json(await post("/v1/test_helpers/chains/base/reorg", { depth: 20 }, keyB))).toMatchObject({ reorganized: 1 });
      expect((await get(`/v1/payment_intents/${b.id}`, keyB)).status).toBe("reverted");
      expect(await usdc(keyB)).toMatchObject({ available: "0", pending: "0" });
    });

    it("a reorg shallower than a deposit's confirmations leaves it; heights are the account's view", async () => {
      const a = await intent();
      await post(`/v1/test_helpers/payment_intents/${a.id}/pay`, { chain: "base", amount: "25" });
      const before = await json(await post("/v1/test_helpers/chains/base/advance", { blocks: 8 }));
      const other = await json(await post("/v1/test_helpers/chains/base/advance", { blocks: 1 }, keyB));
      expect(before.height - other.height).toBe(7);
      expect(await json(await post("/v1/test_helpers/chains/base/reorg", { depth: 3 }))).toMatchObject({ reorganized: 0 });
      expect((await get(`/v1/payment_intents/${a.id}`)).status).toBe("succeeded");
    });

    it("replays the pay helper and events/trigger with the JSON of their first answer", async () => {
      const pi = await intent();
      const path = `/v1/test_helpers/payment_intents/${pi.id}/pay`;
      const first = await post(path, { chain: "base", amount: "10" }, undefined, "pay-1");
      const again = await post(path, { chain: "base", amount: "10" }, undefined, "pay-1");
      expect(first.status).toBe(200);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      const body = await json(first);
      expect(body).toMatchObject({ object: "payment_intent", id: pi.id, amount_pending: "10" });
      expect(await json(again)).toEqual(body);
      expect((await get(`/v1/payment_intents/${pi.id}`)).amount_pending).toBe("10");

      const trigger = await post("/v1/test_helpers/events/trigger", { type: "payout.settled" }, undefined, "trig-1");
      const replay = await post("/v1/test_helpers/events/trigger", { type: "payout.settled" }, undefined, "trig-1");
      const event = await json(trigger);
      expect(event).toMatchObject({ object: "event", type: "payout.settled" });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(await json(replay)).toEqual(event);
      expect(await get(`/v1/events/${event.id}`)).toEqual(event);
      expect((await get("/v1/events?type=payout.settled")).data).toHaveLength(1);
    });

    it("every test helper route answers a replay with its first answer's JSON, and acts once", async () => {
      const pi = await intent();
      const routes: [string, unknown][] = [
        ["/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "3" }],
        ["/v1/test_helpers/clock/advance", { seconds: 5 }],
        ["/v1/test_helpers/chains/base/advance", { blocks: 2 }],
        ["/v1/test_helpers/chains/base/reorg", { depth: 1 }],
        [`/v1/test_helpers/payment_intents/${pi.id}/pay`, { chain: "base", amount: "1" }],
        ["/v1/test_helpers/venues/halt", { venue: "all", seconds: 60 }],
        ["/v1/test_helpers/events/trigger", { type: "payment_intent.succeeded" }],
      ];
      for (const [path, body] of routes) {
        const first = await post(path, body, undefined, `replay:${path}`);
        expect(first.status, path).toBe(200);
        const answer = await json(first);
        const again = await post(path, body, undefined, `replay:${path}`);
        expect(again.headers.get("idempotent-replayed"), path).toBe("true");
        expect(await json(again), path).toEqual(answer);
      }
      // each acted once: funded 3, paid 1, one triggered event
      expect((await usdc()).available).toBe("3");
      expect((await get(`/v1/payment_intents/${pi.id}`)).amount_pending).toBe("1");
      expect((await get("/v1/events?type=payment_intent.succeeded")).data).toHaveLength(1);
    });

    it("pays once when the pay helper dies after the deposit and is retried with its key", async () => {
      const pi = await intent();
      const path = `/v1/test_helpers/payment_intents/${pi.id}/pay`;
      const body = { chain: "base", amount: "25" };
      // the first request holds the key, pays, and dies before its answer is saved
      const begun = (await w.engine.idempotency.begin(w.accountId, "pay-crash", await requestFingerprint("POST", path, JSON.stringify(body))))._unsafeUnwrap();
      if (begun.kind !== "proceed") throw new Error("the key was fresh");
      chains.crashAfterPay = true;
      await expect(w.engine.testHelpers.payPaymentIntent({ ...w.ctx, idempotencyKey: "pay-crash", idempotency: begun.claim }, pi.id, body)).rejects.toThrow(
        "killed after the deposit",
      );
      // its lock runs out (the chain's clock moves on: the deposit is final), and the client retries with the same key
      w.clock.advance(61_000);
      const retry = await post(path, body, undefined, "pay-crash");
      expect(retry.status).toBe(200);
      expect(await json(retry)).toMatchObject({ id: pi.id, status: "succeeded", amount_received: "25" });
      const paid = await get(`/v1/payment_intents/${pi.id}?expand[]=settlements`);
      expect(paid).toMatchObject({ status: "succeeded", amount_received: "25" });
      expect(paid.settlements).toHaveLength(1);
      expect(await usdc()).toMatchObject({ available: "25", pending: "0" });
      // and the saved answer replays
      expect((await post(path, body, undefined, "pay-crash")).headers.get("idempotent-replayed")).toBe("true");
    });
  });
}

afterAll(() => closeSharedStorage());

import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { ManualClock } from "../../../adapters/clock";
import { testWorld, type TestWorld } from "../../support/engine";
import { ScriptedVenue } from "../../support/scripted-venue";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const ETH = 10n ** 18n;
const USDC = 10n ** 6n;

afterAll(() => closeSharedStorage());

/**
 * Events caused by background work carry the request that started the chain of work (Stripe's
 * `request` on asynchronous events): a payout's settlement and its balance update, a batch's
 * completion, a swap's settlement, a limit order's fill, a report's readiness all name the create
 * request and its Idempotency-Key, carried through every due work item on the way.
 */
for (const kind of storageKinds()) {
  describe(`the request behind background events on ${kind.name}`, () => {
    let w: TestWorld;
    let venue: ScriptedVenue;
    beforeEach(async () => {
      const clock = new ManualClock();
      venue = new ScriptedVenue();
      venue.setPool("ETH", 10_000n * ETH, "USDC", 10_000n * 3_000n * USDC);
      w = await testWorld(kind, {
        clock,
        venues: [venue],
        chainAdapters: [new SimulatedChains({ clock, chains: { base: { liquidity: { USDC: "100000" } } } })],
      });
    });
    afterEach(() => w.close());

    /** Sends a POST and answers its body with the request's id. */
    const post = async (path: string, body: unknown, key?: string) => {
      const res = await w.request("POST", path, { body, headers: key ? { "Idempotency-Key": key } : {} });
      const out = await json(res);
      expect(res.status, JSON.stringify(out)).toBe(200);
      return { body: out, requestId: res.headers.get("request-id")! };
    };
    const events = async (type: string) => (await json(await w.request("GET", `/v1/events?type=${type}&limit=100`))).data;
    const advance = (seconds: number) => w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds } });

    it("a payout's broadcast, settlement and balance updates name its create request, through the tracking work", async () => {
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "100" });
      const rcp = (await post("/v1/recipients", { name: "Alice", chain_addresses: { base: ADDRESS } })).body;
      const created = await post("/v1/payouts", { amount: "10", asset: "USDC", recipient: rcp.id }, "payout-1");
      await advance(30); // tracking runs in the background until the leg is final
      const expected = { id: created.requestId, idempotency_key: "payout-1" };
      const [settled] = await events("payout.settled");
      expect(settled.data.object.id).toBe(created.body.id);
      expect(settled.request).toEqual(expected);
      expect((await events("payout.leg.broadcast"))[0].request).toEqual(expected);
      expect((await events("payout.created"))[0].request).toEqual(expected);
      // the settlement's balance update happened in the tracking work: it names the payout's request too
      const updates = (await events("balance.updated")).filter((e: any) => e.created === settled.created);
      expect(updates.map((e: any) => e.request)).toEqual([expected]);
    });

    it("a batch's completion names the batch create request", async () => {
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "100" });
      const rcp = (await post("/v1/recipients", { name: "Alice", chain_addresses: { base: ADDRESS } })).body;
      const batch = await post(
        "/v1/payouts/batches",
        { funding: { asset: "USDC", source: "auto" }, legs: [0, 1, 2].map((row) => ({ row, amount: "1", recipient: rcp.id })) },
        "batch-1",
      );
      await advance(60);
      const [completed] = await events("payout.batch.completed");
      expect(completed.data.object.id).toBe(batch.body.id);
      expect(completed.request).toEqual({ id: batch.requestId, idempotency_key: "batch-1" });
      for (const e of await events("payout.settled")) expect(e.request).toEqual(completed.request);
    });

    it("a swap's settlement and a limit order's fill name their create requests", async () => {
      await post("/v1/test_helpers/balances/fund", { asset: "ETH", chain: "base", amount: "10" });
      const quote = (await post("/v1/quotes", { from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" } })).body;
      const swap = await post("/v1/swaps", { quote: quote.id, destination_chain: "base" }, "swap-1");
      await w.engine.worker.runDue();
      const [settled] = await events("swap.settled");
      expect(settled.data.object.id).toBe(swap.body.id);
      expect(settled.request).toEqual({ id: swap.requestId, idempotency_key: "swap-1" });

      const order = await post(
        "/v1/limit_orders",
        { from: { asset: "ETH", amount: "2" }, to: { asset: "USDC" }, target_rate: "2900", expires_in: 3600 },
        "order-1",
      );
      await advance(30); // the matching work fills it at the market
      const [filled] = await events("limit_order.filled");
      expect(filled.data.object.id).toBe(order.body.id);
      expect(filled.request).toEqual({ id: order.requestId, idempotency_key: "order-1" });
    });

    it("a report's readiness names its create request, with or without an Idempotency-Key", async () => {
      const keyed = await post("/v1/reports", { type: "ledger_entries" }, "report-1");
      const plain = await post("/v1/reports", { type: "payout_ledger" });
      await w.engine.worker.runDue();
      const ready = await events("report.ready");
      const of = (id: string) => ready.find((e: any) => e.data.object.id === id).request;
      expect(of(keyed.body.id)).toEqual({ id: keyed.requestId, idempotency_key: "report-1" });
      expect(of(plain.body.id)).toEqual({ id: plain.requestId, idempotency_key: null });
    });

    it("work the engine starts on its own names no request: a deposit seen on chain", async () => {
      const pi = await post("/v1/payment_intents", { amount: "5", asset: "USDC", chains: ["base"] }, "intent-1");
      await post(`/v1/test_helpers/payment_intents/${pi.body.id}/pay`, { chain: "base", amount: "5" });
      await advance(30);
      const [succeeded] = await events("payment_intent.succeeded");
      expect(succeeded.data.object.id).toBe(pi.body.id);
      expect(succeeded.request).toEqual({ id: null, idempotency_key: null });
    });
  });
}

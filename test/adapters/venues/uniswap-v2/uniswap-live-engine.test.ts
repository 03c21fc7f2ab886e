import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedChains } from "../../../../adapters/chains/simulated";
import { ManualClock } from "../../../../adapters/clock";
import { SimulatedVenues } from "../../../../adapters/venues/simulated";
import { QUOTES } from "../../../../src/resources/quotes/quote-doc";
import { SWAPS } from "../../../../src/resources/swaps/swap-doc";
import { fromPricingRecord } from "../../../../src/quoting/pricing-record";
import { testWorld, type TestWorld } from "../../../support/engine";
import { uniswapRig, type UniswapRig } from "../../../support/evm/uniswap-harness";
import { UNI_CHAIN, uniswapWorld, type UniswapWorld } from "../../../support/evm/uniswap-world";
import { expectLedgerConsistent } from "../../../support/ledger-checks";
import { closeSharedStorage, storageKinds } from "../../../support/storage";

const json = (res: Response): Promise<any> => res.json();
const E6 = 10n ** 6n;
const FINALITY = 2;

afterAll(closeSharedStorage);

/**
 * Issue 20 through the /v1 API on a live key: the engine's venues for live accounts are the
 * Uniswap v2 pools of the hardhat node (the published contracts), its chain the EVM adapter on
 * the same node. The account is funded by a real deposit; quotes are the contracts' own answer,
 * swaps move the hot wallet's tokens as the ledger says, a limit order fills when a third party
 * moves the pool past its target; after each, the chain's holdings reconcile with the books (the
 * pools' movements are on chain: `counter:venues_on_chain` is not taken back out).
 */
for (const kind of storageKinds()) {
  describe(`live swaps on Uniswap v2 through the engine (${kind.name})`, () => {
    let w: TestWorld;
    let uni: UniswapWorld;
    let rig: UniswapRig;
    let liveKey: string;
    let liveId: string;
    let n = 0;

    const post = async (path: string, body: unknown) => w.request("POST", path, { body, key: liveKey, headers: { "Idempotency-Key": `k-${n++}` } });
    const get = async (path: string) => json(await w.request("GET", path, { key: liveKey }));
    const balance = async (asset: string) => (await get("/v1/balances")).data.find((b: any) => b.asset === asset);
    /** Mines blocks and lets the engine's work run (a few seconds of its clock per block). */
    const settle = async (blocks: number) => {
      for (let i = 0; i < blocks; i++) {
        await uni.node.mine(1);
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 11 }))._unsafeUnwrap();
      }
    };
    const ledgerConsistent = () => expectLedgerConsistent(w.harness.inspect, liveId, w.engine.accounts.house(true));
    /** Reads the pools' chain against the books: every asset balanced (the first reading takes the float). */
    const reconciled = async () => {
      const res = await post("/v1/reconciliations/run", { chain: UNI_CHAIN });
      expect(res.status).toBe(200);
      const run = await json(res);
      expect(run.deferred).toEqual([]);
      expect(run.data.map((r: any) => r.asset).sort()).toEqual(["ETH", "EURC", "USDC", "USDT"]);
      for (const r of run.data) expect(r).toMatchObject({ status: "balanced", difference: "0" });
    };
    /** What an account's `available` holds of an asset on the pools' chain, base units. */
    const availableOf = async (accountId: string, asset: string) =>
      (await w.harness.inspect.balances(accountId)).find((b) => b.asset === asset && b.chain === UNI_CHAIN && b.book === "available")?.amount ?? 0n;

    beforeEach(async () => {
      uni = await uniswapWorld();
      await uni.restore();
      const harness = await kind.factory();
      const clock = new ManualClock(Date.now());
      rig = uniswapRig(uni, { storage: harness.storage, clock, finalityConfirmations: FINALITY });
      w = await testWorld(kind, {
        clock,
        harness,
        chainAdapters: [new SimulatedChains({ clock }), rig.chain],
        venues: [new SimulatedVenues({ clock }), rig.venues],
      });
      const live = await w.engine.accounts.create({ name: "Live", livemode: true });
      liveId = live.id;
      liveKey = (await w.engine.accounts.createApiKey(live.id))._unsafeUnwrap().key;
      // a real deposit of 50,000 USDC, credited at finality and swept to the hot wallet
      const pi = await json(await post("/v1/payment_intents", { amount: "50000", asset: "USDC", chains: [UNI_CHAIN] }));
      await uni.node.pay(uni.tokens.USDC!, 1, pi.deposit_addresses[UNI_CHAIN], 50_000n * E6);
      await settle(FINALITY + 3);
      expect(await balance("USDC")).toMatchObject({ available: "50000" });
      await reconciled();
    });
    afterEach(() => w.close());

    it("quotes what the contracts answer for the split, and a swap settles on chain as the ledger says", async () => {
      const res = await post("/v1/quotes", { from: { asset: "USDC", amount: "20000" }, to: { asset: "USDT" } });
      expect(res.status).toBe(200);
      const q = await json(res);
      expect(q.venues.map((v: any) => v.name).sort()).toEqual(["uniswap-v2-ethereum:USDC-ETH-USDT", "uniswap-v2-ethereum:USDC-USDT"]);
      const weights = q.venues.reduce((s: number, v: any) => s + Number(v.weight), 0);
      expect(weights).toBeCloseTo(1, 6);
      // the amount is the router's getAmountsOut for each leg of the split, less the gas (stablecoins: no platform fee)
      const stored = await w.harness.storage.transaction((tx) => QUOTES.get(tx, liveId, q.id));
      const pricing = fromPricingRecord(stored!.doc.pricing);
      let contracts = 0n;
      for (const leg of pricing.legs) {
        const path = leg.venue.endsWith("USDC-USDT") ? ["USDC", "USDT"] : ["USDC", "ETH", "USDT"];
        const amounts = await uni.amountsOut(leg.amountIn, path);
        expect(leg.amountOut).toBe(amounts[amounts.length - 1]);
        contracts += amounts[amounts.length - 1]!;
      }
      expect(q.platform_fee).toBe("0");
      expect(BigInt(Math.round(Number(q.to.amount) * 1e6)) + BigInt(Math.round(Number(q.network_fee) * 1e6))).toBe(contracts);

      // the quote's split as amounts: each venue's share is the router's own answer for it
      for (const v of q.venues) {
        const path = v.name.endsWith("USDC-USDT") ? ["USDC", "USDT"] : ["USDC", "ETH", "USDT"];
        const amounts = await uni.amountsOut(BigInt(Math.round(Number(v.from_amount) * 1e6)), path);
        expect(BigInt(Math.round(Number(v.to_amount) * 1e6))).toBe(amounts[amounts.length - 1]);
      }
      const hot = { usdc: await uni.balance("USDC", uni.hot), usdt: await uni.balance("USDT", uni.hot) };
      const created = await post("/v1/swaps", { quote: q.id, destination_chain: UNI_CHAIN });
      expect(created.status).toBe(200);
      const sw = await json(created);
      expect(sw.status).toBe("executing");
      (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 1 }))._unsafeUnwrap();
      const done = await get(`/v1/swaps/${sw.id}`);
      expect(done).toMatchObject({ status: "settled", executed_rate: q.rate, to: { amount: q.to.amount } });
      // traceable: each execution's transaction is on chain, in its block, from the hot wallet to the router
      expect(done.executions).toHaveLength(q.venues.length);
      for (const e of done.executions) {
        const receipt = await uni.node.provider.request({ method: "eth_getTransactionReceipt", params: [e.tx_hash] });
        expect(receipt).toMatchObject({ status: "0x1", from: uni.hot.toLowerCase() });
        expect(Number(BigInt(receipt.blockNumber))).toBe(e.block);
        expect(e).toMatchObject({ chain: UNI_CHAIN, path: e.venue.endsWith("USDC-USDT") ? ["USDC", "USDT"] : ["USDC", "ETH", "USDT"] });
      }
      // the chain: the input left the hot wallet, the receipts' output arrived
      expect(hot.usdc - (await uni.balance("USDC", uni.hot))).toBe(20_000n * E6);
      expect((await uni.balance("USDT", uni.hot)) - hot.usdt).toBe(contracts);
      // the ledger: the customer paid the input and got the quote's amount; the rest is the network fee
      expect(await balance("USDC")).toMatchObject({ available: "30000", reserved: "0" });
      expect(await balance("USDT")).toMatchObject({ available: q.to.amount });
      await ledgerConsistent();
      // the chain agrees: the pools' movements are the hot wallet's, the gas is the network fee
      await reconciled();
    });

    it("a quote is firm: a third party moving the pool the swap's way before it is mined gives the customer the quote, the house the rest", async () => {
      const q = await json(await post("/v1/quotes", { from: { asset: "USDC", amount: "5000" }, to: { asset: "USDT" } }));
      // a third party sells USDT into both routes: each pays more USDT than quoted
      await uni.trade(20_000n * E6, ["USDT", "USDC"]);
      await uni.trade(20_000n * E6, ["USDT", "ETH"]);
      const hot = await uni.balance("USDT", uni.hot);
      const house = w.engine.accounts.house(true);
      const houseBefore = await availableOf(house, "USDT");
      const sw = await json(await post("/v1/swaps", { quote: q.id, destination_chain: UNI_CHAIN }));
      (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 1 }))._unsafeUnwrap();
      const done = await get(`/v1/swaps/${sw.id}`);
      expect(done.status).toBe("settled");
      const received = (await uni.balance("USDT", uni.hot)) - hot;
      const units = (text: string) => BigInt(Math.round(Number(text) * 1e6));
      // the seed: executed_rate equals the quote rate; the customer gets exactly the quote's amount
      expect(done).toMatchObject({ executed_rate: q.rate, to: { amount: q.to.amount } });
      expect(await balance("USDT")).toMatchObject({ available: q.to.amount });
      // the pools paid more than quoted: the improvement is the house's, to the base unit
      expect(received > units(q.to.amount) + units(q.network_fee)).toBe(true);
      expect((await availableOf(house, "USDT")) - houseBefore).toBe(received - units(q.to.amount) - units(q.network_fee));
      // what the executions say is what the chain carried
      expect(done.executions.reduce((sum: bigint, e: any) => sum + units(e.to_amount), 0n)).toBe(received);
      await ledgerConsistent();
      await reconciled();
    });

    it("a refreshed quote's swap gets the rate actually achieved, which the ledger reflects", async () => {
      const q = await json(await post("/v1/quotes", { from: { asset: "USDC", amount: "5000" }, to: { asset: "USDT" }, ttl: 5 }));
      (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 6 }))._unsafeUnwrap(); // the quote expires
      await uni.trade(20_000n * E6, ["USDT", "USDC"]); // and the pool moves the swap's way after the refresh priced it
      const hot = await uni.balance("USDT", uni.hot);
      const created = await post("/v1/swaps", { quote: q.id, destination_chain: UNI_CHAIN, refresh: { max_slippage: "0.05" } });
      expect(created.status).toBe(200);
      const sw = await json(created);
      expect(sw.refreshed).toBe(true);
      (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 1 }))._unsafeUnwrap();
      const done = await get(`/v1/swaps/${sw.id}`);
      expect(done.status).toBe("settled");
      const received = (await uni.balance("USDT", uni.hot)) - hot;
      const units = (text: string) => BigInt(Math.round(Number(text) * 1e6));
      const stored = await w.harness.storage.transaction((tx) => SWAPS.get(tx, liveId, sw.id));
      const pricing = fromPricingRecord(stored!.doc.pricing);
      expect(units(done.to.amount)).toBe(received - pricing.networkFee - pricing.platformFee);
      expect(await balance("USDT")).toMatchObject({ available: done.to.amount });
      await ledgerConsistent();
      await reconciled();
    });

    it("refuses a swap or a limit order into another chain than the pools' until a bridge exists", async () => {
      const q = await json(await post("/v1/quotes", { from: { asset: "USDC", amount: "100" }, to: { asset: "EURC" } }));
      expect(q.venues.map((v: any) => v.name)).toEqual(["uniswap-v2-ethereum:EURC-ETH-USDC"]);
      const res = await post("/v1/swaps", { quote: q.id, destination_chain: "base" });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toMatchObject({ code: "chain_unsupported", param: "destination_chain" });
      // a limit order too: its fills would deliver on the pools' chain
      const order = await post("/v1/limit_orders", {
        from: { asset: "USDC", amount: "100" },
        to: { asset: "EURC" },
        target_rate: "0.5",
        destination_chain: "base",
      });
      expect(order.status).toBe(400);
      expect((await json(order)).error).toMatchObject({ code: "chain_unsupported", param: "destination_chain" });
      expect(await balance("USDC")).toMatchObject({ available: "50000", reserved: "0" });
      await ledgerConsistent();
    });

    it("a limit order waits, then fills when another trader moves the pool past its target, never below it", async () => {
      const before = await json(await post("/v1/quotes", { from: { asset: "USDC", amount: "5000" }, to: { asset: "USDT" } }));
      const target = (Number(before.rate) * 1.02).toFixed(6); // 2 % better than the pools pay now
      const created = await post("/v1/limit_orders", {
        from: { asset: "USDC", amount: "5000" },
        to: { asset: "USDT" },
        target_rate: target,
        destination_chain: UNI_CHAIN,
      });
      expect(created.status).toBe(200);
      const order = await json(created);
      (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 11 }))._unsafeUnwrap();
      expect(await get(`/v1/limit_orders/${order.id}`)).toMatchObject({ status: "working", fills: [] });
      expect(await balance("USDC")).toMatchObject({ available: "45000", reserved: "5000" });

      // a third party sells a lot of USDT into both routes: USDT gets cheap
      await uni.trade(150_000n * E6, ["USDT", "USDC"]);
      await uni.trade(400_000n * E6, ["USDT", "ETH"]);
      const hotUsdt = await uni.balance("USDT", uni.hot);
      for (let i = 0; i < 3; i++) (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 11 }))._unsafeUnwrap();
      const filled = await get(`/v1/limit_orders/${order.id}`);
      expect(filled.status).toBe("filled");
      for (const fill of filled.fills) expect(Number(fill.rate)).toBeGreaterThanOrEqual(Number(target));
      const received = filled.fills.reduce((s: bigint, f: any) => s + BigInt(Math.round(Number(f.to_amount) * 1e6)), 0n);
      expect(await balance("USDT")).toMatchObject({ available: filled.filled.to_amount });
      // the hot wallet received at least what the customer was credited (the rest: gas and fees)
      const gained = (await uni.balance("USDT", uni.hot)) - hotUsdt;
      expect(gained >= received).toBe(true);
      // each fill names the transaction that carried it; the executions add up to what the chain carried
      let executed = 0n;
      for (const fill of filled.fills) {
        const receipt = await uni.node.provider.request({ method: "eth_getTransactionReceipt", params: [fill.tx_hash] });
        expect(receipt).toMatchObject({ status: "0x1", from: uni.hot.toLowerCase() });
        expect(Number(BigInt(receipt.blockNumber))).toBe(fill.block);
        for (const e of fill.executions) executed += BigInt(Math.round(Number(e.to_amount) * 1e6));
      }
      expect(executed).toBe(gained);
      expect(await balance("USDC")).toMatchObject({ available: "45000", reserved: "0" });
      await ledgerConsistent();
      await reconciled();
    });
  });
}

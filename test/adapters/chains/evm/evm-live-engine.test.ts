import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../../adapters/clock";
import { SimulatedChains } from "../../../../adapters/chains/simulated";
import type { EvmChain } from "../../../../adapters/chains/evm";
import { evmChainOn, evmWorld, HOT_TOKENS, randomAddress, type EvmWorld } from "../../../support/evm/evm-harness";
import { testWorld, type TestWorld } from "../../../support/engine";
import { closeSharedStorage, storageKinds } from "../../../support/storage";
import { type LiveClient, liveClient } from "../../../support/live-client";

const FINALITY = 3;

/**
 * A live account through the /v1 API on the EVM adapter, against hardhat in process (each test
 * from the same chain snapshot): deposits credited at finality and reversed by a real
 * reorganisation, payouts whose transaction is on chain, a reverting token failing its leg,
 * sweeps. The engine runs on a manual clock; the test mines blocks and runs the due work.
 */
for (const kind of storageKinds()) {
  describe(`live money on EVM through the engine (${kind.name})`, () => {
    let w: TestWorld;
    let chain: EvmWorld;
    let evm: EvmChain;
    let live: LiveClient;

    beforeEach(async () => {
      chain = await evmWorld();
      await chain.restore();
      const harness = await kind.factory();
      const clock = new ManualClock(Date.now());
      ({ adapter: evm } = evmChainOn(chain, { storage: harness.storage, clock, finalityConfirmations: FINALITY }));
      w = await testWorld(kind, { clock, chainAdapters: [new SimulatedChains({ clock }), evm], harness });
      live = await liveClient(w);
    });
    afterEach(() => w.close());

    const post = (path: string, body: unknown = {}) => live.post(path, body);
    const get = (path: string) => live.get(path);
    const usdc = async () => (await get("/v1/balances")).data.find((b: any) => b.asset === "USDC");
    /** Mines blocks and lets the engine's work run (a few seconds of its clock per block). */
    const settle = async (blocks: number) => {
      for (let i = 0; i < blocks; i++) {
        await chain.node.mine(1);
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 6 }))._unsafeUnwrap();
      }
    };
    const units = (whole: number) => BigInt(whole) * 1_000_000n;

    it("credits an on-chain deposit at finality, then a reorganisation reverses it", async () => {
      const pi = await post("/v1/payment_intents", { amount: "100", asset: "USDC", chains: ["base"] });
      expect(pi.status).toBe("requires_payment");
      const address = pi.deposit_addresses.base;
      expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);

      const before = await chain.node.snapshot();
      const payment = await chain.node.pay(chain.token, 1, address, units(100));
      await settle(1);
      expect(await get(`/v1/payment_intents/${pi.id}`)).toMatchObject({ status: "processing", amount_pending: "100", amount_received: "0" });
      await settle(FINALITY);
      const paid = await get(`/v1/payment_intents/${pi.id}?expand[]=settlements`);
      expect(paid).toMatchObject({ status: "succeeded", amount_received: "100" });
      expect(paid.settlements[0]).toMatchObject({ tx_hash: payment, finality: "final", status: "credited", chain: "base" });
      expect(await usdc()).toMatchObject({ available: "100", pending: "0" });

      // a branch without the payment, longer than the one that had it
      await chain.node.revert(before);
      await chain.node.mine(FINALITY + 3);
      await settle(1);
      const reverted = await get(`/v1/payment_intents/${pi.id}?expand[]=settlements`);
      expect(reverted).toMatchObject({ status: "reverted", amount_received: "0" });
      expect(reverted.settlements[0]).toMatchObject({ finality: "reverted", status: "reversed" });
      expect(await usdc()).toMatchObject({ available: "0", pending: "0" });
      const types = (await get("/v1/events?limit=100")).data.map((e: any) => e.type);
      expect(types).toContain("payment_intent.reverted");
    });

    it("pays out from credited deposits: the leg's transaction is on chain, the recipient gains exactly the amount, and the deposit is swept", async () => {
      const pi = await post("/v1/payment_intents", { amount: "100", asset: "USDC", chains: ["base"] });
      const deposit = pi.deposit_addresses.base;
      await chain.node.pay(chain.token, 1, deposit, units(100));
      await settle(FINALITY + 1);
      expect((await get(`/v1/payment_intents/${pi.id}`)).status).toBe("succeeded");

      const to = randomAddress();
      const recipient = await post("/v1/recipients", { name: "Onchain", chain_addresses: { base: to } });
      const payout = await post("/v1/payouts", { amount: "40", asset: "USDC", recipient: recipient.id });
      expect(payout.status).toBe("executing");
      expect(payout.legs).toHaveLength(1);
      const leg = payout.legs[0];
      expect(leg).toMatchObject({ chain: "base", status: "broadcast", amount: "40" });
      expect(leg.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      const onChain = await chain.node.provider.request({ method: "eth_getTransactionByHash", params: [leg.tx_hash] });
      expect(onChain.to.toLowerCase()).toBe(chain.token.toLowerCase());
      expect(onChain.from.toLowerCase()).toBe(chain.hot.toLowerCase());

      await settle(FINALITY + 1);
      const done = await get(`/v1/payouts/${payout.id}`);
      expect(done).toMatchObject({ status: "settled" });
      expect(done.legs[0]).toMatchObject({ status: "confirmed", finality: "final", tx_hash: leg.tx_hash });
      expect(await chain.node.tokenBalance(chain.token, to)).toBe(units(40));
      const fee = Number(done.fee);
      expect(fee).toBeGreaterThan(0);
      const balance = await usdc();
      expect(balance).toMatchObject({ reserved: "0", pending: "0" });
      expect(Number(balance.available)).toBeCloseTo(60 - fee, 6);

      // the deposit went to the hot wallet (topped up with gas first); no balance moved for it
      await settle(2 * FINALITY + 4);
      expect(await chain.node.tokenBalance(chain.token, deposit)).toBe(0n);
      expect(await chain.node.tokenBalance(chain.token, chain.hot)).toBe(HOT_TOKENS - units(40) + units(100));
      const { as_of: _, ...unchanged } = balance;
      expect(await usdc()).toMatchObject(unchanged);
    });

    it("fails a leg whose token reverts, releasing its reservation", async () => {
      const pi = await post("/v1/payment_intents", { amount: "10", asset: "USDC", chains: ["base"] });
      await chain.node.pay(chain.token, 2, pi.deposit_addresses.base, units(10));
      await settle(FINALITY + 1);
      await chain.node.tokenCall(chain.token, "setReverting", [true]);
      const to = randomAddress();
      const recipient = await post("/v1/recipients", { name: "Blocked token", chain_addresses: { base: to } });
      const payout = await post("/v1/payouts", { amount: "5", asset: "USDC", recipient: recipient.id });
      await settle(2);
      const after = await get(`/v1/payouts/${payout.id}`);
      expect(after).toMatchObject({ status: "failed" });
      expect(after.legs[0]).toMatchObject({ status: "failed", failure_code: "broadcast_rejected" });
      expect(await usdc()).toMatchObject({ available: "10", reserved: "0" });
      expect(await chain.node.tokenBalance(chain.token, to)).toBe(0n);
    });

    it("keeps test mode on the simulated chains: a test account is never routed to the live chain", async () => {
      (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "50" }))._unsafeUnwrap();
      const to = randomAddress();
      const rcp = (await w.engine.recipients.create(w.ctx, { name: "T", chain_addresses: { base: to } }))._unsafeUnwrap();
      const payout = (await w.engine.payouts.create(w.ctx, { amount: "5", asset: "USDC", recipient: rcp.id }))._unsafeUnwrap();
      expect(payout.legs[0]!.tx_hash).not.toBeNull();
      expect(await chain.node.provider.request({ method: "eth_getTransactionByHash", params: [payout.legs[0]!.tx_hash] })).toBeNull();
      expect(await chain.node.tokenBalance(chain.token, to)).toBe(0n);
      // and a live account has no route where only a simulation serves
      const rcpLive = await post("/v1/recipients", { name: "Sol", chain_addresses: { solana: "So11111111111111111111111111111111111111112" } });
      const refused = await w.request("POST", "/v1/payouts", {
        body: { amount: "1", asset: "USDC", recipient: rcpLive.id },
        key: live.key,
        headers: { "Idempotency-Key": "live-sol" },
      });
      expect(refused.status).toBe(402);
    });
  });
}

afterAll(closeSharedStorage);

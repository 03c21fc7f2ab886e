import { encodeFunctionData, getAddress } from "viem";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../../adapters/clock";
import { SimulatedChains } from "../../../../adapters/chains/simulated";
import type { EvmChain } from "../../../../adapters/chains/evm";
import { EVM_NAMESPACE, EvmState } from "../../../../adapters/chains/evm/evm-state";
import { disperseArtifact } from "../../../support/evm/evm-node";
import { evmChainOn, evmWorld, randomAddress, type EvmWorld } from "../../../support/evm/evm-harness";
import { testWorld, type TestWorld } from "../../../support/engine";
import { closeSharedStorage, storageKinds } from "../../../support/storage";
import { type LiveClient, liveClient, reconcileNow } from "../../../support/live-client";

const FINALITY = 3;
const units = (whole: number) => BigInt(whole) * 1_000_000n;

afterAll(closeSharedStorage);

/**
 * Reconciliation on a live EVM chain (hardhat in process), checked against the chain's own state:
 * after deposits, sweeps and payouts every reading balances (the token, and ETH with every gas
 * the wallet paid); money moved by no one the engine knows is a drift of exactly its amount, with
 * the transaction that moved it: a transfer into the hot wallet, a payout sent from the hot wallet
 * outside the engine, a deposit the deposit reader skipped, ETH paid to a deposit address by a
 * contract (an internal transfer no log shows).
 */
for (const kind of storageKinds()) {
  describe(`reconciliation on EVM (${kind.name})`, () => {
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
    const settle = async (blocks: number) => {
      for (let i = 0; i < blocks; i++) {
        await chain.node.mine(1);
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 6 }))._unsafeUnwrap();
      }
    };
    /** A reading of base now: per asset. */
    const reading = () => reconcileNow(live, "base");
    /** A deposit of `amount` USDC credited and swept, and a payout of `paid` settled. */
    const activity = async (amount: number, paid: number) => {
      const pi = await post("/v1/payment_intents", { amount: String(amount), asset: "USDC", chains: ["base"] });
      await chain.node.pay(chain.token, 1, pi.deposit_addresses.base, units(amount));
      await settle(FINALITY + 1);
      const rcp = await post("/v1/recipients", { name: "R", chain_addresses: { base: randomAddress() } });
      const payout = await post("/v1/payouts", { amount: String(paid), asset: "USDC", recipient: rcp.id });
      await settle(3 * FINALITY + 3); // final, and the deposit swept (top-up, move)
      expect((await get(`/v1/payouts/${payout.id}`)).status).toBe("settled");
      return pi;
    };

    it("balances the token and ETH through deposits, sweeps and payouts, and finds a transfer into the hot wallet, then a payout outside the engine", async () => {
      const opening = await reading();
      expect(opening.USDC).toMatchObject({ status: "balanced", difference: "0" });
      expect(opening.ETH).toMatchObject({ status: "balanced", difference: "0" });
      await activity(200, 30);
      const after = await reading();
      expect(after.USDC).toMatchObject({ status: "balanced", difference: "0" });
      expect(after.ETH).toMatchObject({ status: "balanced", difference: "0" });
      const detail = await get(`/v1/reconciliations/${after.ETH.id}`);
      expect(Number(detail.explanation.in_books.network_fees_paid)).toBeLessThan(0); // gas of the payout, top-up and sweep

      // someone sends 7.5 USDC straight to the hot wallet
      const topUp = await chain.node.pay(chain.token, 2, chain.hot, 7_500_000n);
      await settle(1);
      const drift = await reading();
      expect(drift.USDC).toMatchObject({ status: "drift", difference: "7.5" });
      expect(drift.ETH).toMatchObject({ status: "balanced" });
      const explained = await get(`/v1/reconciliations/${drift.USDC.id}`);
      expect(explained.explanation.transactions).toEqual([{ tx_hash: topUp, address: chain.hot, amount: "7.5", read_at: expect.any(String) }]);
      const house = w.engine.accounts.house(true);
      const operator = (await w.engine.accounts.createApiKey(house))._unsafeUnwrap().key;
      const accepted = await w.request("POST", `/v1/reconciliations/${drift.USDC.id}/accept`, {
        body: { reason: "the operator's top-up" },
        key: operator,
      });
      expect(accepted.status).toBe(200);
      expect((await reading()).USDC).toMatchObject({ status: "balanced", difference: "0" });

      // the hot wallet's key used elsewhere: 2 USDC paid out without the engine
      await chain.node.provider.request({ method: "hardhat_impersonateAccount", params: [chain.hot] });
      const outside = await chain.node.tokenCall(chain.token, "transfer", [randomAddress(), 2_000_000n], chain.hot);
      await settle(1);
      const out = await reading();
      expect(out.USDC).toMatchObject({ status: "drift", difference: "-2" });
      expect(out.ETH.status).toBe("drift"); // its gas, paid by the hot wallet outside the engine
      expect(Number(out.ETH.difference)).toBeLessThan(0);
      expect((await get(`/v1/reconciliations/${out.USDC.id}`)).explanation.transactions).toEqual([
        { tx_hash: outside, address: chain.hot, amount: "-2", read_at: expect.any(String) },
      ]);
    });

    it("finds a deposit the reader skipped, at its address, with its transaction", async () => {
      await activity(50, 5);
      await reading();
      const pi = await post("/v1/payment_intents", { amount: "10", asset: "USDC", chains: ["base"] });
      const address = pi.deposit_addresses.base;
      const payment = await chain.node.pay(chain.token, 3, address, 3_000_000n);
      // the reader's tip moved past the block without reading it (what a reader bug does)
      const head = await chain.node.head();
      const block = await chain.node.provider.request({ method: "eth_getBlockByNumber", params: [`0x${head.toString(16)}`, false] });
      await w.harness.storage
        .adapterState(EVM_NAMESPACE)
        .transaction(async (tx) =>
          new EvmState(tx).moveScanTip("base", await new EvmState(tx).getScanTip("base"), { chain: "base", number: head, hash: block.hash }),
        );
      await settle(FINALITY + 1);
      expect((await get(`/v1/payment_intents/${pi.id}`)).status).toBe("requires_payment");
      const drift = (await reading()).USDC;
      expect(drift).toMatchObject({ status: "drift", difference: "3" });
      const explained = await get(`/v1/reconciliations/${drift.id}`);
      expect(explained.explanation.addresses).toEqual([{ address: getAddress(address), holds: "3", deposits_read: "0" }]);
      expect(explained.explanation.transactions).toEqual([{ tx_hash: payment, address: getAddress(address), amount: "3", read_at: String(head) }]);
    });

    it("finds ETH a contract paid to a deposit address (an internal transfer: no transaction to the address, no log)", async () => {
      await reading();
      const pi = await post("/v1/payment_intents", { amount: "1", asset: "ETH", chains: ["base"] });
      const data = encodeFunctionData({
        abi: disperseArtifact().abi,
        functionName: "disperseEther",
        args: [[pi.deposit_addresses.base], [10n ** 15n]],
      } as never);
      await chain.node.send({ from: await chain.node.account(2), to: chain.disperse, data, value: 10n ** 15n });
      await settle(FINALITY + 1);
      const drift = (await reading()).ETH;
      expect(drift).toMatchObject({ status: "drift", difference: "0.001" });
    });
  });
}

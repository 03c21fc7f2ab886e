import { address, type TransactionPartialSigner } from "@solana/kit";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../../adapters/clock";
import { SimulatedChains } from "../../../../adapters/chains/simulated";
import { SOLANA_NAMESPACE, type SolanaChain, associatedTokenAccount } from "../../../../adapters/chains/solana";
import { SolanaState } from "../../../../adapters/chains/solana/solana-state";
import { type TestWorld, testWorld } from "../../../support/engine";
import { type SolanaWorld, randomSolanaAddress, solanaChainOn, solanaSigner, solanaWorld } from "../../../support/solana/solana-harness";
import { closeSharedStorage, storageKinds } from "../../../support/storage";
import { type LiveClient, liveClient, reconcileNow } from "../../../support/live-client";

const units = (whole: number) => BigInt(whole) * 1_000_000n;

afterAll(closeSharedStorage);

/**
 * Reconciliation on Solana (litesvm behind the JSON-RPC server), against the chain's own
 * accounts: after deposits, sweeps and payouts USDC and SOL balance (every fee and recipient
 * account's rent the hot wallet paid); the outside check's case, one transaction paying two
 * intents whose second output the deposit reader skipped, is a drift of exactly 3 USDC at that
 * address with the transaction; a transfer into the hot wallet and a payout signed outside the
 * engine with its key are drifts of exactly their amounts.
 */
for (const kind of storageKinds()) {
  describe(`reconciliation on Solana (${kind.name})`, () => {
    let w: TestWorld;
    let chain: SolanaWorld;
    let solana: SolanaChain;
    let live: LiveClient;

    beforeEach(async () => {
      chain = await solanaWorld();
      const harness = await kind.factory();
      await harness.storage.init();
      const clock = new ManualClock(Date.now());
      ({ adapter: solana } = solanaChainOn(chain, { storage: harness.storage, clock }));
      w = await testWorld(kind, { clock, chainAdapters: [new SimulatedChains({ clock }), solana], harness });
      live = await liveClient(w);
    });
    afterEach(async () => {
      await w.close();
      await chain.close();
    });

    const post = (path: string, body: unknown = {}) => live.post(path, body);
    const get = (path: string) => live.get(path);
    const settle = async (blocks: number) => {
      for (let i = 0; i < blocks; i++) {
        chain.node.mine(1);
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 2 }))._unsafeUnwrap();
      }
    };
    const reading = () => reconcileNow(live, "solana");
    /** The hot wallet's key, used outside the engine (a wallet app holding the same mnemonic). */
    const hotOutside = (): TransactionPartialSigner => ({
      address: address(chain.hot),
      signTransactions: async (transactions) =>
        Promise.all(transactions.map(async (t) => ({ [chain.hot]: await solanaSigner.sign(0, new Uint8Array(t.messageBytes)) }) as never)),
    });

    it("balances USDC and SOL through deposits, sweeps and payouts; finds a transfer into the hot wallet and a payout signed outside the engine", async () => {
      const opening = await reading();
      expect(opening.USDC).toMatchObject({ status: "balanced", difference: "0" });
      expect(opening.SOL).toMatchObject({ status: "balanced", difference: "0" });
      const pi = await post("/v1/payment_intents", { amount: "200", asset: "USDC", chains: ["solana"] });
      await chain.pay(pi.deposit_addresses.solana, units(200));
      await settle(chain.node.finalityDepth + 2);
      const rcp = await post("/v1/recipients", { name: "R", chain_addresses: { solana: await randomSolanaAddress() } });
      const payout = await post("/v1/payouts", { amount: "30", asset: "USDC", recipient: rcp.id });
      await settle(2 * chain.node.finalityDepth + 3);
      expect((await get(`/v1/payouts/${payout.id}`)).status).toBe("settled");
      const after = await reading();
      expect(after.USDC).toMatchObject({ status: "balanced", difference: "0" });
      expect(after.SOL).toMatchObject({ status: "balanced", difference: "0" });

      // 7.5 USDC sent straight to the hot wallet by someone
      const topUp = await chain.pay(chain.hot, 7_500_000n);
      await settle(1);
      const drift = await reading();
      expect(drift.USDC).toMatchObject({ status: "drift", difference: "7.5" });
      expect((await get(`/v1/reconciliations/${drift.USDC.id}`)).explanation.transactions).toEqual([
        { tx_hash: topUp, address: chain.hot, amount: "7.5", read_at: expect.any(String) },
      ]);
      const house = w.engine.accounts.house(true);
      const operator = (await w.engine.accounts.createApiKey(house))._unsafeUnwrap().key;
      const accepted = await w.request("POST", `/v1/reconciliations/${drift.USDC.id}/accept`, {
        body: { reason: "the operator's top-up" },
        key: operator,
      });
      expect(accepted.status).toBe(200);
      expect((await reading()).USDC).toMatchObject({ status: "balanced", difference: "0" });

      // the hot wallet's key used elsewhere: 2 USDC paid out without the engine (its fee in SOL too)
      const outside = await chain.payMany([{ owner: await randomSolanaAddress(), amount: 2_000_000n }], { from: hotOutside() as never });
      await settle(1);
      const out = await reading();
      expect(out.USDC).toMatchObject({ status: "drift", difference: "-2" });
      expect(out.SOL.status).toBe("drift");
      expect((await get(`/v1/reconciliations/${out.USDC.id}`)).explanation.transactions).toEqual([
        { tx_hash: outside, address: chain.hot, amount: "-2", read_at: expect.any(String) },
      ]);
    });

    it("finds the outside check's case: one transaction paying two intents, the second output never read, 3 USDC at its address", async () => {
      await reading();
      const b = await post("/v1/payment_intents", { amount: "7", asset: "USDC", chains: ["solana"] });
      const c = await post("/v1/payment_intents", { amount: "3", asset: "USDC", chains: ["solana"] });
      const cAddress = c.deposit_addresses.solana;
      const signature = await chain.payMany([
        { owner: b.deposit_addresses.solana, amount: units(7) },
        { owner: cAddress, amount: units(3) },
      ]);
      chain.node.mine(1);
      // C's account's reader moves past the signature without reading it, as the old deposit id made it
      const ata = await associatedTokenAccount(cAddress, chain.mint);
      await w.harness.storage.adapterState(SOLANA_NAMESPACE).transaction(async (tx) => {
        const state = new SolanaState(tx);
        const watch = (await state.listWatches()).find((x) => x.account === ata)!;
        await state.putWatch({ ...watch, until: signature });
      });
      await settle(chain.node.finalityDepth + 2);
      expect((await get(`/v1/payment_intents/${b.id}`)).status).toBe("succeeded");
      expect((await get(`/v1/payment_intents/${c.id}`)).status).toBe("requires_payment");
      const drift = (await reading()).USDC;
      expect(drift).toMatchObject({ status: "drift", difference: "3" });
      const explained = await get(`/v1/reconciliations/${drift.id}`);
      expect(explained.explanation.addresses).toEqual([{ address: cAddress, holds: "3", deposits_read: "0" }]);
      expect(explained.explanation.transactions).toEqual([{ tx_hash: signature, address: cAddress, amount: "3", read_at: expect.any(String) }]);
    });
  });
}

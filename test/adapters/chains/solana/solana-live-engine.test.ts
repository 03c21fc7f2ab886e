import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../../adapters/clock";
import { SimulatedChains } from "../../../../adapters/chains/simulated";
import type { SolanaChain } from "../../../../adapters/chains/solana";
import { type TestWorld, testWorld } from "../../../support/engine";
import { expectLedgerConsistent } from "../../../support/ledger-checks";
import { HOT_USDC, type SolanaWorld, randomSolanaAddress, solanaChainOn, solanaWorld } from "../../../support/solana/solana-harness";
import { closeSharedStorage, storageKinds } from "../../../support/storage";
import { type LiveClient, liveClient } from "../../../support/live-client";

const units = (whole: number) => BigInt(whole) * 1_000_000n;

/**
 * A live account through the /v1 API on the Solana adapter, against litesvm behind the JSON-RPC
 * server: deposits credited at finalized and reversed when a fork drops them, USDC payouts to a
 * fresh address whose fee carries the new ATA's rent, sweeps, and the ledger equal to the chain.
 * The engine runs on a manual clock; the test builds blocks and runs the due work.
 */
for (const kind of storageKinds()) {
  describe(`live money on Solana through the engine (${kind.name})`, () => {
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
    const usdc = async () => (await get("/v1/balances")).data.find((b: { asset: string }) => b.asset === "USDC");
    /** Builds blocks and lets the engine's work run (a few seconds of its clock per block). */
    const settle = async (blocks: number) => {
      for (let i = 0; i < blocks; i++) {
        chain.node.mine(1);
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 2 }))._unsafeUnwrap();
      }
    };

    it("credits a USDC deposit at finalized; a deposit on a fork dropped before finality is reverted and credits nothing", async () => {
      const pi = await post("/v1/payment_intents", { amount: "100", asset: "USDC", chains: ["solana"] });
      expect(pi.status).toBe("requires_payment");
      const address = pi.deposit_addresses.solana;
      expect(address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      const payment = await chain.pay(address, units(100));
      await settle(1);
      expect(await get(`/v1/payment_intents/${pi.id}`)).toMatchObject({ status: "processing", amount_pending: "100", amount_received: "0" });
      await settle(chain.node.finalityDepth);
      const paid = await get(`/v1/payment_intents/${pi.id}?expand[]=settlements`);
      expect(paid).toMatchObject({ status: "succeeded", amount_received: "100" });
      expect(paid.settlements[0]).toMatchObject({ tx_hash: payment, finality: "final", status: "credited", chain: "solana" });
      expect(await usdc()).toMatchObject({ available: "100", pending: "0" });

      // a second deposit, seen at confirmed, on a fork that is dropped before it is finalized
      const pi2 = await post("/v1/payment_intents", { amount: "7", asset: "USDC", chains: ["solana"] });
      const before = chain.node.snapshot();
      await chain.pay(pi2.deposit_addresses.solana, units(7));
      await settle(1);
      expect(await get(`/v1/payment_intents/${pi2.id}`)).toMatchObject({ status: "processing", amount_pending: "7" });
      chain.node.dropFork(before);
      await settle(1);
      // the settlement is reversed; the intent, never credited (credit waits for finalized), asks for payment again
      const reverted = await get(`/v1/payment_intents/${pi2.id}?expand[]=settlements`);
      expect(reverted).toMatchObject({ status: "requires_payment", amount_received: "0", amount_pending: "0" });
      expect(reverted.settlements[0]).toMatchObject({ finality: "reverted", status: "reversed" });
      expect(await usdc()).toMatchObject({ available: "100", pending: "0" });
      await expectLedgerConsistent(w.harness.inspect, live.id, w.engine.accounts.house(true));
    });

    it("pays USDC out to a fresh address: the ATA is created, its rent is in the fee, the deposit is swept, and the ledger equals the chain", async () => {
      const pi = await post("/v1/payment_intents", { amount: "100", asset: "USDC", chains: ["solana"] });
      const deposit = pi.deposit_addresses.solana;
      await chain.pay(deposit, units(100));
      await settle(chain.node.finalityDepth + 1);
      expect((await get(`/v1/payment_intents/${pi.id}`)).status).toBe("succeeded");

      const to = await randomSolanaAddress();
      const recipient = await post("/v1/recipients", { name: "Onchain", chain_addresses: { solana: to } });
      const hotLamports = chain.node.balance(chain.hot);
      const payout = await post("/v1/payouts", { amount: "40", asset: "USDC", recipient: recipient.id });
      expect(payout.status).toBe("executing");
      const leg = payout.legs[0];
      expect(leg).toMatchObject({ chain: "solana", status: "broadcast", amount: "40" });
      expect(chain.node.landed.has(leg.tx_hash)).toBe(true);

      await settle(chain.node.finalityDepth + 1);
      const done = await get(`/v1/payouts/${payout.id}`);
      expect(done).toMatchObject({ status: "settled" });
      expect(done.legs[0]).toMatchObject({ status: "confirmed", finality: "final", tx_hash: leg.tx_hash });
      expect(await chain.usdcOf(to)).toBe(units(40));
      // the network fee: the signature, the priority fee and the new ATA's rent, at 150 USDC per SOL
      const spentLamports = hotLamports - chain.node.balance(chain.hot);
      expect(spentLamports).toBeGreaterThan(2_039_280n);
      const fee = Number(done.fee);
      expect(fee).toBeGreaterThanOrEqual(Number(spentLamports) * 150e-9 - 1e-6);
      const balance = await usdc();
      expect(balance).toMatchObject({ reserved: "0", pending: "0" });
      expect(Number(balance.available)).toBeCloseTo(60 - fee, 6);

      // the deposit goes to the hot wallet (the hot wallet paying the fee); no balance moves for it
      await settle(chain.node.finalityDepth + 4);
      expect(await chain.usdcOf(deposit)).toBe(0n);
      const hotUsdc = await chain.usdcOf(chain.hot);
      expect(hotUsdc).toBe(HOT_USDC - units(40) + units(100));
      const { as_of: _, ...unchanged } = balance;
      expect(await usdc()).toMatchObject(unchanged);
      // ledger = chain: what the customer holds and paid in fees is what came in minus what went out
      const custody = hotUsdc + (await chain.usdcOf(deposit)) - HOT_USDC;
      expect(custody).toBe(units(100) - units(40));
      expect(BigInt(Math.round((Number(balance.available) + fee) * 1e6))).toBe(custody);
      await expectLedgerConsistent(w.harness.inspect, live.id, w.engine.accounts.house(true));
    });

    it("fails a leg the Token program refuses and releases its reservation", async () => {
      const pi = await post("/v1/payment_intents", { amount: "10", asset: "USDC", chains: ["solana"] });
      await chain.pay(pi.deposit_addresses.solana, units(10));
      await settle(chain.node.finalityDepth + 1);
      chain.node.setTokenAccount(await hotAta(chain), chain.mint, chain.hot, HOT_USDC, true); // frozen
      const to = await randomSolanaAddress();
      const recipient = await post("/v1/recipients", { name: "Frozen", chain_addresses: { solana: to } });
      const payout = await post("/v1/payouts", { amount: "5", asset: "USDC", recipient: recipient.id });
      await settle(2);
      const after = await get(`/v1/payouts/${payout.id}`);
      expect(after).toMatchObject({ status: "failed" });
      expect(after.legs[0]).toMatchObject({ status: "failed", failure_code: "broadcast_rejected" });
      expect(await usdc()).toMatchObject({ available: "10", reserved: "0" });
      expect(await chain.usdcOf(to)).toBe(0n);
    });
  });
}

const hotAta = async (chain: SolanaWorld) => (await import("../../../../adapters/chains/solana")).associatedTokenAccount(chain.hot, chain.mint);

afterAll(closeSharedStorage);

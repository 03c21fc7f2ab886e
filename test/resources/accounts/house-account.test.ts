import { afterAll, afterEach, describe, expect, it } from "vitest";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { ManualClock } from "../../../adapters/clock";
import { devPorts } from "../../../adapters/dev";
import { createEngine } from "../../../src/modules";
import type { ChainAdapter } from "../../../src/ports/chain";
import { testWorld, type TestWorld } from "../../support/engine";
import { expectLedgerConsistent } from "../../support/ledger-checks";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/** Simulated chains that report what a final transfer cost: one base unit (a real chain's gas, converted). */
function chainsCharging(clock: ManualClock, feePaid: bigint): ChainAdapter {
  const sim = new SimulatedChains({ clock });
  return Object.assign(Object.create(sim) as SimulatedChains, {
    transferStatusMany: undefined, // statuses one by one, through the override below
    async transferStatus(chain: string, txHash: string) {
      const status = await sim.transferStatus(chain, txHash);
      return status.finality === "final" ? { ...status, feePaid } : status;
    },
  });
}

afterAll(closeSharedStorage);

for (const kind of storageKinds()) {
  describe(`the house account on ${kind.name}`, () => {
    let w: TestWorld;
    afterEach(() => w?.close());

    it("exists once per mode, survives a restart, and is no customer's", async () => {
      w = await testWorld(kind);
      const test = w.engine.accounts.house(false);
      const live = w.engine.accounts.house(true);
      expect(test).not.toBe(live);
      expect(await w.engine.accounts.get(live)).toMatchObject({ livemode: true, settings: { house: true } });
      const again = await createEngine({ storage: w.harness.storage, ...devPorts({ clock: w.clock }) });
      expect(again.accounts.house(false)).toBe(test);
      expect(again.accounts.house(true)).toBe(live);
    });

    it("earns a conversion's platform fee; the customer's books hold no fee", async () => {
      w = await testWorld(kind);
      await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "ETH", chain: "base", amount: "10" } });
      const quote = await json(await w.request("POST", "/v1/quotes", { body: { from: { asset: "ETH", amount: "2" }, to: { asset: "USDC" } } }));
      const swap = await w.request("POST", "/v1/swaps", {
        body: { quote: quote.id, destination_chain: "base" },
        headers: { "idempotency-key": "swap-1" },
      });
      expect(swap.status).toBe(200);
      await w.engine.worker.runDue();
      const house = w.engine.accounts.house(false);
      const fee = BigInt(Math.round(Number(quote.platform_fee) * 1e6));
      expect(fee).toBeGreaterThan(0n);
      const houseUsdc = (await w.harness.inspect.balances(house)).filter((b) => b.asset === "USDC" && b.book === "available");
      expect(houseUsdc.reduce((s, b) => s + b.amount, 0n)).toBe(fee);
      expect((await w.harness.inspect.balances(w.accountId)).some((b) => b.book.includes("platform"))).toBe(false);
      // the house's balance moved, but no balance.updated about it reached the customer's events
      const events = await w.harness.inspect.events(w.accountId);
      expect(events.every((e) => e.accountId === w.accountId)).toBe(true);
      await expectLedgerConsistent(w.harness.inspect, w.accountId, house);
    });

    it("keeps the margin between a leg's fee and what the chain charged", async () => {
      // chains that report a cost of one base unit for every final transfer
      const clock = new ManualClock();
      w = await testWorld(kind, { clock, chainAdapters: [chainsCharging(clock, 1n)] });
      await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "USDC", chain: "base", amount: "100" } });
      const recipient = await json(await w.request("POST", "/v1/recipients", { body: { name: "Ada", chain_addresses: { base: ADDRESS } } }));
      const payout = await json(
        await w.request("POST", "/v1/payouts", {
          body: { amount: "10", asset: "USDC", recipient: recipient.id },
          headers: { "idempotency-key": "po-1" },
        }),
      );
      const fee = BigInt(Math.round(Number(payout.fee) * 1e6));
      expect(fee).toBeGreaterThan(1n);
      for (let i = 0; i < 30; i++) await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 10 });
      expect((await json(await w.request("GET", `/v1/payouts/${payout.id}`))).status).toBe("settled");
      const house = w.engine.accounts.house(false);
      const houseUsdc = (await w.harness.inspect.balances(house)).filter((b) => b.asset === "USDC" && b.book === "available");
      expect(houseUsdc.reduce((s, b) => s + b.amount, 0n)).toBe(fee - 1n);
      const network = (await w.harness.inspect.balances(w.accountId)).filter((b) => b.asset === "USDC" && b.book === "counter:network_fees");
      expect(network.reduce((s, b) => s + b.amount, 0n)).toBe(1n);
      // the payout lists its owner's entries only: the margin's entry is the house account's
      const own = new Set((await w.harness.inspect.entries(w.accountId)).map((e) => e.id));
      const settled = await json(await w.request("GET", `/v1/payouts/${payout.id}`));
      expect(settled.ledger_entries.length).toBeGreaterThan(0);
      expect(settled.ledger_entries.filter((id: string) => !own.has(id))).toEqual([]);
      await expectLedgerConsistent(w.harness.inspect, w.accountId, house);
    });
  });
}

import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { failsOnChain } from "../../../adapters/chains/simulated/failing-addresses";
import { testWorld, type TestWorld } from "../../support/engine";
import { expectLedgerConsistent } from "../../support/ledger-checks";
import { MAGIC } from "../../support/magic-values";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import { LATEST_VERSION } from "../../../src/versions/api-versions";

const json = (res: Response): Promise<any> => res.json();

describe("failing addresses", () => {
  it("match per family: EVM ending in dead (any case), Solana ending in ten 1s, Bitcoin whose program ends in dead", () => {
    expect(failsOnChain("evm", MAGIC.deadEvm)).toBe(true);
    expect(failsOnChain("evm", MAGIC.deadEvm.toLowerCase())).toBe(true);
    expect(failsOnChain("evm", MAGIC.goodEvm)).toBe(false);
    expect(failsOnChain("solana", MAGIC.deadSolana)).toBe(true);
    expect(failsOnChain("solana", MAGIC.goodSolana)).toBe(false);
    expect(failsOnChain("bitcoin", MAGIC.deadBitcoin)).toBe(true);
    expect(failsOnChain("bitcoin", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")).toBe(false);
  });
});

for (const kind of storageKinds()) {
  describe(`test-mode outcomes on ${kind.name}`, () => {
    let w: TestWorld;
    let n = 0;

    beforeEach(async () => {
      const clock = new ManualClock();
      const harness = await kind.factory();
      await harness.storage.init();
      // the simulated chains on the engine's storage, as `npm start` runs them
      w = await testWorld(kind, { clock, harness, chainAdapters: [new SimulatedChains({ clock, storage: harness.storage })] });
    });
    afterEach(() => w.close());

    const post = (path: string, body?: unknown, key?: string) =>
      w.request("POST", path, { ...(body !== undefined ? { body } : {}), headers: { "Idempotency-Key": `k-${n++}` }, ...(key ? { key } : {}) });
    const get = (path: string, key?: string) => w.request("GET", path, key ? { key } : {});
    const advance = (seconds: number) => post("/v1/test_helpers/clock/advance", { seconds });
    const fund = (chain: string, amount: string, asset = "USDC") => post("/v1/test_helpers/balances/fund", { asset, chain, amount });
    const recipient = async (chain_addresses: Record<string, string>, name = "Acme") =>
      json(await post("/v1/recipients", { name, chain_addresses, screening: true }));
    const balance = async (asset = "USDC") => (await json(await get("/v1/balances"))).data.find((b: any) => b.asset === asset);
    const eventsOf = async (type: string) => (await json(await get(`/v1/events?type=${type}`))).data;
    const ledgerBalanced = () => expectLedgerConsistent(w.harness.inspect, w.accountId, w.engine.accounts.house(false));

    it("screens a recipient whose name contains flagged as flagged, and refuses to pay it", async () => {
      const flagged = await recipient({ base: MAGIC.goodEvm }, "Acme FLAGGED Ltd");
      const cleared = await recipient({ base: MAGIC.goodEvm }, "Acme");
      await advance(2);
      expect(await json(await get(`/v1/recipients/${flagged.id}`))).toMatchObject({ screening_status: "flagged" });
      expect(await json(await get(`/v1/recipients/${cleared.id}`))).toMatchObject({ screening_status: "cleared" });
      expect((await eventsOf("recipient.screening_updated")).map((e: any) => e.data.object.screening_status).sort()).toEqual(["cleared", "flagged"]);
      await fund("base", "100");
      const refused = await post("/v1/payouts", { amount: "10", asset: "USDC", recipient: flagged.id });
      expect(refused.status).toBe(402);
      expect((await json(refused)).error).toMatchObject({ type: "request_failed", code: "recipient_blocked" });
      expect(await balance()).toMatchObject({ available: "100", reserved: "0" });
    });

    it("fails a payout whose only leg goes to a dead address, releasing the reservation", async () => {
      const rcp = await recipient({ base: MAGIC.deadEvm });
      await advance(2);
      await fund("base", "50");
      const payout = await json(await post("/v1/payouts", { amount: "20", asset: "USDC", recipient: rcp.id }));
      expect(payout.status).toBe("executing");
      await advance(10);
      const done = await json(await get(`/v1/payouts/${payout.id}`));
      expect(done).toMatchObject({ status: "failed", legs: [{ status: "failed", failure_code: "transfer_failed" }] });
      expect((await eventsOf("payout.failed"))[0].data.object.id).toBe(payout.id);
      expect(await balance()).toMatchObject({ available: "50", reserved: "0" });
      await ledgerBalanced();
    });

    it("settles the good legs and fails the dead one: partially_settled, the failed part released", async () => {
      const rcp = await recipient({ ethereum: MAGIC.deadEvm, solana: MAGIC.goodSolana });
      await advance(2);
      await fund("ethereum", "20");
      await fund("solana", "20");
      // more than either chain holds: the payout needs both
      const payout = await json(await post("/v1/payouts", { amount: "30", asset: "USDC", recipient: rcp.id }));
      expect(payout.legs.map((l: any) => l.chain).sort()).toEqual(["ethereum", "solana"]);
      await advance(20);
      const done = await json(await get(`/v1/payouts/${payout.id}`));
      expect(done.status).toBe("partially_settled");
      const eth = done.legs.find((l: any) => l.chain === "ethereum");
      const sol = done.legs.find((l: any) => l.chain === "solana");
      expect(eth).toMatchObject({ status: "failed", failure_code: "transfer_failed" });
      expect(sol).toMatchObject({ status: "confirmed", finality: "final" });
      const usdc = await balance();
      expect(usdc.reserved).toBe("0");
      expect(usdc.chains.ethereum.available).toBe("20");
      expect((await eventsOf("payout.partially_settled"))[0].data.object.id).toBe(payout.id);
      await ledgerBalanced();
    });

    it("sets the policy over HTTP: read at GET /v1/account, a payout above the threshold waits in created", async () => {
      const before = await json(await get("/v1/account"));
      expect(before).toMatchObject({ id: w.accountId, object: "account", livemode: false, policy: { max_payout_amount: {}, approval_threshold: {} } });
      const set = await post("/v1/account/policy", { approval_threshold: { USDC: "100" }, max_payout_amount: { USDC: "500" } });
      expect(set.status).toBe(200);
      expect((await json(set)).policy).toEqual({ max_payout_amount: { USDC: "500" }, approval_threshold: { USDC: "100" } });
      // a field left out keeps what it was
      await post("/v1/account/policy", { approval_threshold: { USDC: "150" } });
      expect((await json(await get("/v1/account"))).policy).toEqual({ max_payout_amount: { USDC: "500" }, approval_threshold: { USDC: "150" } });
      const bad = await post("/v1/account/policy", { max_payout_amount: { DOGE: "1" } });
      expect(bad.status).toBe(400);
      expect((await json(bad)).error.code).toBe("asset_unsupported");

      const rcp = await recipient({ base: MAGIC.goodEvm });
      await advance(2);
      await fund("base", "1000");
      const held = await json(await post("/v1/payouts", { amount: "200", asset: "USDC", recipient: rcp.id }));
      expect(held.status).toBe("created");
      const over = await post("/v1/payouts", { amount: "600", asset: "USDC", recipient: rcp.id });
      expect(over.status).toBe(402);
      expect((await json(over)).error.code).toBe("policy_limit_exceeded");
      expect((await json(await post(`/v1/payouts/${held.id}/approve`))).status).toBe("executing");
      await advance(5);
      expect((await json(await get(`/v1/payouts/${held.id}`))).status).toBe("settled");
    });

    it("halts venues: a swap fails with swap.failed, a limit order waits and fills once the halt ends", async () => {
      await fund("base", "10000");
      const quote = await json(await post("/v1/quotes", { from: { asset: "USDC", amount: "100" }, to: { asset: "ETH" }, ttl: 600 }));
      const unknown = await post("/v1/test_helpers/venues/halt", { venue: "nowhere", seconds: 60 });
      expect(unknown.status).toBe(400);
      expect((await json(unknown)).error).toMatchObject({ code: "parameter_invalid", param: "venue" });
      const halt = await json(await post("/v1/test_helpers/venues/halt", { venue: "all", seconds: 60 }));
      expect(halt).toMatchObject({ object: "test_venue_halt", venue: "all" });
      const swap = await json(await post("/v1/swaps", { quote: quote.id, destination_chain: "base" }));
      expect(swap.status).toBe("executing");
      await advance(1);
      expect(await json(await get(`/v1/swaps/${swap.id}`))).toMatchObject({ status: "failed", failure_code: "venue_rejected" });
      expect((await eventsOf("swap.failed"))[0].data.object.id).toBe(swap.id);
      expect((await balance()).available).toBe("10000");

      const rate = (Number(quote.rate) * 0.9).toFixed(9); // well below the market: fills at the first look
      const order = await json(
        await post("/v1/limit_orders", { from: { asset: "USDC", amount: "50" }, to: { asset: "ETH" }, target_rate: rate, expires_in: 3600 }),
      );
      await advance(30);
      expect(await json(await get(`/v1/limit_orders/${order.id}`))).toMatchObject({ status: "working", fills: [] });
      await advance(60);
      expect((await json(await get(`/v1/limit_orders/${order.id}`))).status).toBe("filled");
      await ledgerBalanced();
    });

    it("halts one venue: swaps priced on it fail, and 0 seconds lifts the halt", async () => {
      await fund("base", "1000");
      const quote = await json(await post("/v1/quotes", { from: { asset: "USDC", amount: "100" }, to: { asset: "ETH" }, ttl: 600 }));
      const venue = quote.venues[0].name;
      await post("/v1/test_helpers/venues/halt", { venue, seconds: 600 });
      const lifted = await json(await post("/v1/test_helpers/venues/halt", { venue, seconds: 0 }));
      expect(lifted).toMatchObject({ venue, halted_until: null });
      const ok = await json(await post("/v1/swaps", { quote: quote.id, destination_chain: "base" }));
      await advance(1);
      expect((await json(await get(`/v1/swaps/${ok.id}`))).status).toBe("settled");
      const again = await json(await post("/v1/quotes", { from: { asset: "USDC", amount: "100" }, to: { asset: "ETH" }, ttl: 600 }));
      await post("/v1/test_helpers/venues/halt", { venue: again.venues[0].name, seconds: 600 });
      const failed = await json(await post("/v1/swaps", { quote: again.id, destination_chain: "base" }));
      await advance(1);
      expect((await json(await get(`/v1/swaps/${failed.id}`))).status).toBe("failed");
    });

    it("keeps live keys away from test behaviour: no halt helper, and the account API answers in live mode", async () => {
      const live = await w.engine.accounts.create({ name: "Live", livemode: true });
      const key = (await w.engine.accounts.createApiKey(live.id))._unsafeUnwrap().key;
      expect((await post("/v1/test_helpers/venues/halt", { venue: "all", seconds: 60 }, key)).status).toBe(404);
      expect(await json(await get("/v1/account", key))).toMatchObject({ id: live.id, livemode: true });
      // a live account shares the venues: a test account's halt never reaches it
      await post("/v1/test_helpers/venues/halt", { venue: "all", seconds: 600 });
      expect(await (await w.engine.accounts.get(live.id))?.settings).toEqual({ api_version: LATEST_VERSION }); // no halt
    });
  });
}

afterAll(closeSharedStorage);

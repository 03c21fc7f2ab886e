import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { SimulatedScreening } from "../../../adapters/screening/simulated-screening";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

export const ADDRESSES = {
  base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  ethereum: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  solana: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
  bitcoin: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
};

const json = (res: Response): Promise<any> => res.json();

for (const kind of storageKinds()) {
  describe(`payouts over HTTP on ${kind.name}`, () => {
    let w: TestWorld;
    let sim: SimulatedChains;
    let screening: SimulatedScreening;
    let key = 0;

    beforeEach(async () => {
      const clock = new ManualClock();
      sim = new SimulatedChains({
        clock,
        chains: { base: { liquidity: { USDC: "1000" } }, solana: { liquidity: { USDC: "1000" } } },
      });
      screening = new SimulatedScreening({ clock, denylist: { names: ["Mallory"] } });
      w = await testWorld(kind, { clock, chainAdapters: [sim], screening });
    });
    afterEach(() => w.close());

    const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
      w.request("POST", path, { ...(body !== undefined ? { body } : {}), headers: { "Idempotency-Key": `k-${key++}`, ...headers } });
    const get = (path: string) => w.request("GET", path);
    const fund = (chain: string, amount: string) => post("/v1/test_helpers/balances/fund", { asset: "USDC", chain, amount });
    const advance = (seconds: number) => post("/v1/test_helpers/clock/advance", { seconds });
    const usdc = async () => (await json(await get("/v1/balances"))).data.find((b: any) => b.asset === "USDC");
    const recipient = async (addresses: Record<string, string> = ADDRESSES, name = "Alice") =>
      (await json(await post("/v1/recipients", { name, chain_addresses: addresses }))).id as string;
    const events = async (type: string) => (await json(await get(`/v1/events?type=${type}&limit=200`))).data;

    it("settles a payout within seconds: broadcast, finality, ledger posted", async () => {
      const rcp = await recipient({ base: ADDRESSES.base });
      await fund("base", "100");
      const created = await post("/v1/payouts", { amount: "10", asset: "USDC", recipient: rcp, reference: "inv_1001" });
      expect(created.status).toBe(200);
      const payout = await json(created);
      expect(payout).toMatchObject({ object: "payout", status: "executing", amount: "10", asset: "USDC", recipient: rcp });
      expect(payout.id).toMatch(/^po_/);
      expect(payout.legs).toHaveLength(1);
      // the seed: the create response carries an executing payout with its leg broadcast
      expect(payout.legs[0]).toMatchObject({ chain: "base", amount: "10", fee: "0.0105", status: "broadcast", finality: "pending" });
      expect(payout.legs[0].tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(payout.fee).toBe("0.0105"); // 0.01 fixed + 0.005 % rounded up
      expect(await usdc()).toMatchObject({ available: "89.9895", reserved: "10.0105" });

      await advance(1);
      const broadcast = await json(await get(`/v1/payouts/${payout.id}`));
      expect(broadcast.legs[0].status).toBe("broadcast");
      expect(broadcast.legs[0].tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      await advance(5);
      const settled = await json(await get(`/v1/payouts/${payout.id}?expand[]=ledger_entries`));
      expect(settled).toMatchObject({ status: "settled", legs: [{ status: "confirmed", finality: "final" }] });
      expect(settled.settled_at).not.toBeNull();
      expect(await usdc()).toMatchObject({ available: "89.9895", reserved: "0" });
      const entries = settled.ledger_entries;
      expect(entries.map((e: any) => [e.balance_type, e.amount])).toEqual([
        ["available", "-10.0105"],
        ["reserved", "10.0105"],
        ["reserved", "-10"],
        ["reserved", "-0.0105"],
      ]);
      expect(entries.every((e: any) => e.object === "ledger_entry" && e.resource === payout.id)).toBe(true);

      expect((await events("payout.created")).map((e: any) => e.data.object.id)).toEqual([payout.id]);
      const [legEvent] = await events("payout.leg.broadcast");
      expect(legEvent.data.object).toMatchObject({ object: "payout_leg", payout: payout.id, chain: "base", status: "broadcast" });
      const [settledEvent] = await events("payout.settled");
      expect(settledEvent.data.object).toMatchObject({ id: payout.id, status: "settled" });
      expect(await events("payout.failed")).toEqual([]);
    });

    it("splits a payout larger than any one chain's liquidity into legs that sum exactly", async () => {
      const rcp = await recipient();
      await fund("base", "900");
      await fund("solana", "900");
      const payout = await json(await post("/v1/payouts", { amount: "1500.123456", asset: "USDC", recipient: rcp }));
      expect(payout.status).toBe("executing");
      expect(payout.legs.map((l: any) => l.chain).sort()).toEqual(["base", "solana"]);
      const micro = (v: string) => {
        const [i, f = ""] = v.split(".");
        return BigInt(i! + f.padEnd(6, "0"));
      };
      expect(payout.legs.reduce((a: bigint, l: any) => a + micro(l.amount), 0n)).toBe(1_500_123_456n);
      expect(micro(payout.fee)).toBe(payout.legs.reduce((a: bigint, l: any) => a + micro(l.fee), 0n));
      await advance(10);
      expect((await json(await get(`/v1/payouts/${payout.id}`))).status).toBe("settled");
      const balance = await usdc();
      expect(micro(balance.available)).toBe(1_800_000_000n - 1_500_123_456n - micro(payout.fee));
      expect(balance.reserved).toBe("0");
    });

    it("ends in partially_settled when a leg fails, releasing the failed part", async () => {
      const rcp = await recipient();
      await fund("base", "900");
      await fund("solana", "900");
      sim.failNext("solana");
      const payout = await json(await post("/v1/payouts", { amount: "1500", asset: "USDC", recipient: rcp }));
      const solana = payout.legs.find((l: any) => l.chain === "solana");
      const base = payout.legs.find((l: any) => l.chain === "base");
      await advance(10);
      const done = await json(await get(`/v1/payouts/${payout.id}`));
      expect(done.status).toBe("partially_settled");
      expect(done.legs.find((l: any) => l.chain === "solana")).toMatchObject({ status: "failed", failure_code: "broadcast_rejected" });
      expect(done.legs.find((l: any) => l.chain === "base")).toMatchObject({ status: "confirmed" });
      const balance = await usdc();
      expect(balance.reserved).toBe("0");
      expect(balance.chains.solana.available).toBe("900"); // released in full
      expect(Number(balance.chains.base.available)).toBeCloseTo(900 - Number(base.amount) - Number(base.fee), 6);
      expect(solana).toBeTruthy();
      expect((await events("payout.partially_settled"))[0].data.object.id).toBe(payout.id);
    });

    it("fails a payout whose only leg fails, and the reservation comes back", async () => {
      const rcp = await recipient({ base: ADDRESSES.base });
      await fund("base", "50");
      sim.failNext("base", 1, "reverted");
      const payout = await json(await post("/v1/payouts", { amount: "20", asset: "USDC", recipient: rcp }));
      await advance(10);
      const done = await json(await get(`/v1/payouts/${payout.id}`));
      expect(done).toMatchObject({ status: "failed", legs: [{ status: "failed", failure_code: "transfer_failed" }] });
      expect(await usdc()).toMatchObject({ available: "50", reserved: "0" });
      expect((await events("payout.failed"))[0].data.object.id).toBe(payout.id);
    });

    it("holds payouts above the approval threshold in created; cancel releases, approve executes", async () => {
      (await w.engine.accounts.setPolicy(w.accountId, { approval_threshold: { USDC: "100" }, max_payout_amount: { USDC: "500" } }))._unsafeUnwrap();
      const rcp = await recipient({ base: ADDRESSES.base });
      await fund("base", "1000");
      const big = await json(await post("/v1/payouts", { amount: "200", asset: "USDC", recipient: rcp }));
      expect(big.status).toBe("created");
      expect((await usdc()).reserved).toBe("200.02");
      const canceled = await json(await post(`/v1/payouts/${big.id}/cancel`));
      expect(canceled).toMatchObject({ status: "canceled", legs: [{ status: "failed", failure_code: "payout_canceled" }] });
      expect(canceled.canceled_at).not.toBeNull();
      expect(await usdc()).toMatchObject({ available: "1000", reserved: "0" });
      const again = await post(`/v1/payouts/${big.id}/cancel`);
      expect(again.status).toBe(400);
      expect((await json(again)).error.code).toBe("payout_not_cancelable");

      const other = await json(await post("/v1/payouts", { amount: "150", asset: "USDC", recipient: rcp }));
      const approved = await json(await post(`/v1/payouts/${other.id}/approve`));
      expect(approved.status).toBe("executing");
      // approving what no longer awaits approval: its own code, not a generic parameter_invalid
      const approvedAgain = await post(`/v1/payouts/${other.id}/approve`);
      expect(approvedAgain.status).toBe(400);
      expect((await json(approvedAgain)).error).toMatchObject({ code: "payout_not_approvable", type: "invalid_request_error", param: "id" });
      await advance(10);
      expect((await json(await get(`/v1/payouts/${other.id}`))).status).toBe("settled");
      const cancelSettled = await post(`/v1/payouts/${other.id}/cancel`);
      expect((await json(cancelSettled)).error.code).toBe("payout_not_cancelable");

      const small = await json(await post("/v1/payouts", { amount: "100", asset: "USDC", recipient: rcp }));
      expect(small.status).toBe("executing");
      const tooBig = await post("/v1/payouts", { amount: "500.01", asset: "USDC", recipient: rcp });
      expect(tooBig.status).toBe(402);
      expect((await json(tooBig)).error.code).toBe("policy_limit_exceeded");
    });

    it.each([
      [{ amount: "10", asset: "USDC", recipient: "rcp_missing" }, 404, "resource_missing"],
      [{ amount: "10.0000001", asset: "USDC", recipient: "R" }, 400, "amount_invalid"],
      [{ amount: "10", asset: "XYZ", recipient: "R" }, 400, "asset_unsupported"],
      [{ amount: "10", asset: "BTC", recipient: "R" }, 402, "insufficient_funds"],
      [{ amount: "10", asset: "USDC", recipient: "R", routing: { max_network_fee: "0.001" } }, 402, "no_route"],
      [{ amount: "10", asset: "USDC", recipient: "R", routing: { prefer_chains: ["bitcoin"] } }, 400, "chain_unsupported"],
      [{ amount: "5000", asset: "USDC", recipient: "R" }, 402, "insufficient_funds"],
      [{ asset: "USDC", recipient: "R" }, 400, "parameter_missing"],
    ])("refuses %j with %i %s and changes nothing", async (body, status, code) => {
      const rcp = await recipient({ base: ADDRESSES.base, bitcoin: ADDRESSES.bitcoin });
      await fund("base", "100");
      const before = await usdc();
      const res = await post("/v1/payouts", JSON.parse(JSON.stringify(body).replace('"R"', `"${rcp}"`)));
      expect(res.status).toBe(status);
      expect((await json(res)).error.code).toBe(code);
      expect(await usdc()).toEqual({ ...before, as_of: expect.any(String) });
      expect((await json(await get("/v1/payouts"))).data).toEqual([]);
    });

    it("needs an Idempotency-Key and replays a repeated create", async () => {
      const rcp = await recipient({ base: ADDRESSES.base });
      await fund("base", "100");
      const missing = await w.request("POST", "/v1/payouts", { body: { amount: "1", asset: "USDC", recipient: rcp } });
      expect(missing.status).toBe(400);
      expect((await json(missing)).error).toMatchObject({ code: "parameter_missing", param: "Idempotency-Key" });
      const body = { amount: "1", asset: "USDC", recipient: rcp };
      const firstText = await (await post("/v1/payouts", body, { "Idempotency-Key": "same" })).text();
      const replay = await post("/v1/payouts", body, { "Idempotency-Key": "same" });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(await replay.text()).toBe(firstText); // the answer as first given, legs broadcast
      expect(JSON.parse(firstText).legs[0].status).toBe("broadcast");
      expect((await json(await get("/v1/payouts"))).data).toHaveLength(1);
    });

    it("refuses a flagged recipient (402 recipient_blocked) and one without an address for the asset", async () => {
      await fund("base", "100");
      const mallory = (await json(await post("/v1/recipients", { name: "Mallory", chain_addresses: { base: ADDRESSES.base }, screening: true }))).id;
      expect((await json(await get(`/v1/recipients/${mallory}`))).screening_status).toBe("pending");
      await advance(2);
      expect((await json(await get(`/v1/recipients/${mallory}`))).screening_status).toBe("flagged");
      const [updated] = await events("recipient.screening_updated");
      expect(updated.data.object).toMatchObject({ id: mallory, screening_status: "flagged" });
      const res = await post("/v1/payouts", { amount: "1", asset: "USDC", recipient: mallory });
      expect(res.status).toBe(402);
      expect((await json(res)).error.code).toBe("recipient_blocked");

      const btcOnly = await recipient({ bitcoin: ADDRESSES.bitcoin });
      const noAddress = await post("/v1/payouts", { amount: "1", asset: "USDC", recipient: btcOnly });
      expect(noAddress.status).toBe(400);
      expect((await json(noAddress)).error.code).toBe("recipient_address_missing");
    });

    it("lists payouts by status, search and created range, with cursors", async () => {
      const rcp = await recipient({ base: ADDRESSES.base });
      await fund("base", "100");
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await json(await post("/v1/payouts", { amount: "1", asset: "USDC", recipient: rcp, reference: `inv_${i}` }))).id);
        w.clock.advance(1);
      }
      await advance(10);
      const page = await json(await get("/v1/payouts?limit=2"));
      expect(page.data.map((p: any) => p.id)).toEqual([ids[4], ids[3]]);
      const next = await json(await get(`/v1/payouts?limit=2&starting_after=${page.next_cursor}`));
      expect(next.data.map((p: any) => p.id)).toEqual([ids[2], ids[1]]);
      expect((await json(await get("/v1/payouts?status=settled"))).data).toHaveLength(5);
      expect((await json(await get("/v1/payouts?status=executing"))).data).toHaveLength(0);
      expect((await json(await get("/v1/payouts?search=inv_3"))).data.map((p: any) => p.id)).toEqual([ids[3]]);
      expect((await json(await get(`/v1/payouts?search=${ids[1]}`))).data.map((p: any) => p.id)).toEqual([ids[1]]);
      const withEntries = await json(await get("/v1/payouts?limit=1&expand[]=ledger_entries"));
      expect(withEntries.data[0].ledger_entries[0].object).toBe("ledger_entry");
      const bad = await get("/v1/payouts?status=nope");
      expect((await json(bad)).error.code).toBe("parameter_invalid");
    });
  });
}

afterAll(closeSharedStorage);

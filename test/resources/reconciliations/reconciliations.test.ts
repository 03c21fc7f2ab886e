import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { ManualClock } from "../../../adapters/clock";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();

afterAll(closeSharedStorage);

/**
 * Reconciliation in test mode (docs/reconciliation.md), on the simulated chains: every flow of
 * the engine (funding, payouts in flight and final, deposits credited or not, swaps at venues off
 * the chain) leaves each chain balanced against the books, and money moved outside the engine
 * (into the hot wallet, out of it, onto a deposit address unreported) is a drift of exactly its
 * amount, explained by its transaction or address, announced to the accounts that subscribed, and
 * balanced again once accepted.
 */
for (const kind of storageKinds()) {
  describe(`reconciliations on the simulated chains (${kind.name})`, () => {
    let w: TestWorld;
    let sim: SimulatedChains;
    let n = 0;
    const post = async (path: string, body: unknown = {}, key?: string) =>
      w.request("POST", path, { body, headers: { "Idempotency-Key": `k-${n++}` }, ...(key ? { key } : {}) });
    /** A key of the mode's house account: the operator's, who alone accepts a drift. */
    const houseKey = async () => (await w.engine.accounts.createApiKey(w.engine.accounts.house(false)))._unsafeUnwrap().key;
    const get = async (path: string) => json(await w.request("GET", path));
    const run = async (chain?: string) => {
      const res = await post("/v1/reconciliations/run", chain ? { chain } : {});
      expect(res.status).toBe(200);
      return json(res);
    };
    const settle = async (seconds = 30) => (await w.engine.testHelpers.advanceClock(w.ctx, { seconds }))._unsafeUnwrap();

    beforeEach(async () => {
      const clock = new ManualClock(Date.UTC(2026, 11, 1));
      const harness = await kind.factory();
      sim = new SimulatedChains({ clock, storage: harness.storage });
      w = await testWorld(kind, { clock, harness, chainAdapters: [sim] });
    });
    afterEach(() => w.close());

    it("balances every chain and asset through funding, payouts, deposits credited or not, and swaps", async () => {
      const first = await run();
      expect(first.data.length).toBeGreaterThan(5);
      for (const r of first.data) expect(r).toMatchObject({ object: "reconciliation", livemode: false, status: "balanced", difference: "0" });
      // the first reading takes what the simulated hot wallets hold as the operator's float
      expect(first.data.find((r: any) => r.chain === "base" && r.asset === "USDC").explanation).toMatchObject({ opening: true });

      expect((await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "1000" })).status).toBe(200);
      const rcp = await json(await post("/v1/recipients", { name: "R", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } }));
      const payout = await json(await post("/v1/payouts", { amount: "100", asset: "USDC", recipient: rcp.id }));
      // broadcast, not yet final: the chain carried it, the books still hold it reserved
      const flight = (await run("base")).data.find((r: any) => r.asset === "USDC");
      expect(flight).toMatchObject({ status: "balanced", difference: "0" });
      expect(flight.explanation.in_books.in_flight).toBe("-100");
      await settle();
      expect((await get(`/v1/payouts/${payout.id}`)).status).toBe("settled");
      // a deposit credited, and one after its intent expired (credited to no one, held for the payer)
      const pi = await json(await post("/v1/payment_intents", { amount: "25", asset: "USDC", chains: ["base"] }));
      expect((await post(`/v1/test_helpers/payment_intents/${pi.id}/pay`, { chain: "base", amount: "25" })).status).toBe(200);
      const late = await json(await post("/v1/payment_intents", { amount: "5", asset: "USDC", chains: ["base"], expires_in: 60 }));
      await settle(120);
      await sim.pay({ chain: "base", asset: "USDC", address: late.deposit_addresses.base, amount: 5_000_000n });
      // a swap at the simulated venues (off the chain: the books move, the chain does not)
      const q = await json(await post("/v1/quotes", { from: { asset: "USDC", amount: "50" }, to: { asset: "ETH" } }));
      expect((await post("/v1/swaps", { quote: q.id, destination_chain: "base" })).status).toBe(200);
      await settle();
      const after = await run();
      for (const r of after.data) expect(r, `${r.chain} ${r.asset}`).toMatchObject({ status: "balanced", difference: "0" });
      const usdc = await get(`/v1/reconciliations/${after.data.find((r: any) => r.chain === "base" && r.asset === "USDC").id}`);
      expect(usdc.explanation.in_books).toMatchObject({ unallocated: "5", in_flight: "0" });
      expect(usdc.explanation.opening).toBe(false);
    });

    it("finds money moved outside the engine to the base unit, explains it, tells the subscribers, and balances once accepted", async () => {
      await run();
      const endpoint = await json(await post("/v1/webhook_endpoints", { url: "https://example.com/hooks", enabled_events: ["reconciliation.drift_detected"] }));
      expect(endpoint.enabled_events).toEqual(["reconciliation.drift_detected"]);
      // a top-up of the hot wallet the engine did not make
      const inbound = await sim.transferOutside({ chain: "base", asset: "USDC", amount: 250_000_001n });
      const drift = (await run("base")).data.find((r: any) => r.asset === "USDC");
      expect(drift).toMatchObject({ status: "drift", difference: "250.000001" });
      expect(drift.explanation.transactions).toEqual([
        { tx_hash: inbound.txHash, address: sim.hotWallet("base"), amount: "250.000001", read_at: String(inbound.at) },
      ]);
      // the accounts whose endpoints name the event got it
      const events = await get("/v1/events?type=reconciliation.drift_detected");
      expect(events.data.map((e: any) => e.data.object.id)).toEqual([drift.id]);
      // listed, and filtered by chain, asset and status
      expect((await get("/v1/reconciliations?status=drift")).data.map((r: any) => r.id)).toEqual([drift.id]);
      expect((await get("/v1/reconciliations?asset=USDC&status=drift")).data.map((r: any) => r.id)).toEqual([drift.id]);
      expect((await get("/v1/reconciliations?chain=base&asset=USDC")).data.every((r: any) => r.chain === "base" && r.asset === "USDC")).toBe(true);
      expect((await get("/v1/reconciliations?chain=polygon&status=drift")).data).toEqual([]);
      // a tenant's key cannot make it the operator's
      const tenant = await post(`/v1/reconciliations/${drift.id}/accept`, { reason: "nothing to see" });
      expect(tenant.status).toBe(403);
      expect((await json(tenant)).error).toMatchObject({ code: "permission_denied" });
      // the operator says it was their own top-up: it joins the float
      const operator = await houseKey();
      const accepted = await json(await post(`/v1/reconciliations/${drift.id}/accept`, { reason: "hot wallet top-up" }, operator));
      expect(accepted.explanation.accepted).toMatchObject({ reason: "hot wallet top-up" });
      expect((await post(`/v1/reconciliations/${drift.id}/accept`, { reason: "again" }, operator)).status).toBe(400);
      expect((await run("base")).data.find((r: any) => r.asset === "USDC")).toMatchObject({ status: "balanced", difference: "0" });

      // a payout sent outside the engine with its keys
      await sim.transferOutside({ chain: "base", asset: "USDC", amount: -40_000_000n });
      expect((await run("base")).data.find((r: any) => r.asset === "USDC")).toMatchObject({ status: "drift", difference: "-40" });
    });

    it("finds a deposit the chain adapter never read on a deposit address, naming the address", async () => {
      await run();
      const pi = await json(await post("/v1/payment_intents", { amount: "10", asset: "USDC", chains: ["solana"] }));
      const address = pi.deposit_addresses.solana;
      await sim.transferOutside({ chain: "solana", asset: "USDC", amount: 3_000_000n, address });
      const drift = (await run("solana")).data.find((r: any) => r.asset === "USDC");
      expect(drift).toMatchObject({ status: "drift", difference: "3" });
      expect(drift.explanation.addresses).toEqual([{ address, holds: "3", deposits_read: "0" }]);
      expect((await get(`/v1/payment_intents/${pi.id}`)).status).toBe("requires_payment");
      // the payer's money never becomes the operator's: accepted, the reading stays a drift
      const operator = await houseKey();
      expect((await post(`/v1/reconciliations/${drift.id}/accept`, { reason: "try" }, operator)).status).toBe(200);
      expect((await run("solana")).data.find((r: any) => r.asset === "USDC")).toMatchObject({ status: "drift", difference: "3" });
    });

    it("refuses what it cannot do, from the catalogue", async () => {
      expect((await post("/v1/reconciliations/run", { chain: "nowhere" })).status).toBe(400);
      expect((await w.request("GET", "/v1/reconciliations/rec_01jd5x3kq8b7m2c9v4n6p0r1s2")).status).toBe(404);
      const limited = (await w.engine.accounts.createApiKey(w.accountId, { scopes: ["payouts:read"] }))._unsafeUnwrap().key;
      expect((await w.request("GET", "/v1/reconciliations", { key: limited })).status).toBe(403);
      const balanced = (await run("base")).data[0];
      const operator = await houseKey();
      expect((await post(`/v1/reconciliations/${balanced.id}/accept`, { reason: "nothing to accept" }, operator)).status).toBe(400);
      expect((await post(`/v1/reconciliations/${balanced.id}/accept`, {}, operator)).status).toBe(400);
      // a key that may not read reconciliations cannot have their event delivered either
      const webhooksOnly = (await w.engine.accounts.createApiKey(w.accountId, { scopes: ["webhook_endpoints:write"] }))._unsafeUnwrap().key;
      const refused = await post("/v1/webhook_endpoints", { url: "https://example.com/h", enabled_events: ["reconciliation.drift_detected"] }, webhooksOnly);
      expect(refused.status).toBe(403);
      expect((await json(refused)).error).toMatchObject({ code: "permission_denied", param: "enabled_events[0]" });
      expect((await get("/v1/webhook_endpoints")).data).toEqual([]);
    });

    it("takes the float once when two first runs race: the second waits for the first's", async () => {
      // the first run to read base's ETH float (its first asset) holds its transaction open for a
      // while after the read; a second that read it too before the first committed would take a
      // float of its own
      const floatKey = "reconciliation.float:test:base:ETH";
      let waiting: (() => void) | null = null;
      let arrivals = 0;
      const held = (): Promise<void> =>
        ++arrivals === 1
          ? new Promise((resolve) => {
              waiting = resolve;
              setTimeout(resolve, 1_500);
            })
          : Promise.resolve(waiting?.());
      const storage = w.harness.storage;
      const original = storage.transaction.bind(storage);
      storage.transaction = ((fn: (tx: any) => Promise<unknown>, options?: unknown) =>
        original(async (tx: any) => {
          const meta = new Proxy(tx.meta, {
            get: (target, prop) =>
              prop === "get"
                ? async (key: string, opts?: unknown) => {
                    const value = await target.get(key, opts);
                    if (key === floatKey) await held();
                    return value;
                  }
                : Reflect.get(target, prop),
          });
          return fn(new Proxy(tx, { get: (target, prop) => (prop === "meta" ? meta : Reflect.get(target, prop)) }));
        }, options as never)) as typeof storage.transaction;
      try {
        const [a, b] = await Promise.all([run("base"), run("base")]);
        const readings = [...a.data, ...b.data].filter((r: any) => r.asset === "ETH");
        expect(readings).toHaveLength(2);
        for (const r of readings) expect(r).toMatchObject({ status: "balanced", difference: "0" });
        const explained = await Promise.all(readings.map((r: any) => get(`/v1/reconciliations/${r.id}`)));
        expect(explained.filter((r: any) => r.explanation.opening)).toHaveLength(1);
        expect(arrivals).toBeGreaterThanOrEqual(2);
      } finally {
        storage.transaction = original;
      }
    });
  });
}

import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { testWorld, type TestWorld } from "../../support/engine";
import { expectLedgerConsistent } from "../../support/ledger-checks";
import { ScriptedVenue } from "../../support/scripted-venue";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/;

afterAll(closeSharedStorage);

for (const kind of storageKinds()) {
  describe(`quotes and swaps over ${kind.name}`, () => {
    let w: TestWorld;
    beforeEach(async () => {
      w = await testWorld(kind);
    });
    afterEach(() => w.close());

    const fund = (asset: string, chain: string, amount: string) => w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset, chain, amount } });
    const quote = (body: unknown) => w.request("POST", "/v1/quotes", { body });
    const swap = (body: unknown, key: string | null = `k-${Math.random()}`) =>
      w.request("POST", "/v1/swaps", { body, headers: key ? { "idempotency-key": key } : {} });
    const balance = async (asset: string) => (await json(await w.request("GET", "/v1/balances"))).data.find((b: any) => b.asset === asset);

    it("quotes with the seed's fields: rate, impact, fees, weights summing to 1, expires_at = created + ttl", async () => {
      const res = await quote({ from: { asset: "ETH", amount: "1000" }, to: { asset: "USDC" }, ttl: 120 });
      expect(res.status).toBe(200);
      const q = await json(res);
      expect(q).toMatchObject({ object: "quote", from: { asset: "ETH", amount: "1000" }, to: { asset: "USDC" }, approximate: false });
      expect(q.id).toMatch(/^qt_[0-9a-z]{26}$/);
      for (const field of [q.to.amount, q.rate, q.price_impact, q.network_fee, q.platform_fee]) expect(field).toMatch(DECIMAL);
      expect(q.created).toMatch(ISO);
      expect(Date.parse(q.expires_at) - Date.parse(q.created)).toBe(120_000);
      expect(q.venues.length).toBeGreaterThan(1); // 1,000 ETH is worth splitting
      const micros = q.venues.reduce((s: bigint, v: any) => s + BigInt(Math.round(Number(v.weight) * 1e6)), 0n);
      expect(micros).toBe(1_000_000n);
      expect(Number(q.platform_fee)).toBeGreaterThan(0);
      // byte for byte: the documented field order survives storage (jsonb reorders keys)
      expect(await (await w.request("GET", `/v1/quotes/${q.id}`)).text()).toBe(JSON.stringify(q));
      // default ttl 30 s; no platform fee on a stablecoin pair
      const stable = await json(await quote({ from: { asset: "USDC", amount: "500" }, to: { asset: "USDT" } }));
      expect(Date.parse(stable.expires_at) - Date.parse(stable.created)).toBe(30_000);
      expect(stable.platform_fee).toBe("0");
      // quotes move no money
      expect(await w.harness.inspect.entries(w.accountId)).toEqual([]);
    });

    it.each([
      [{ from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" }, ttl: 4 }, 400, "parameter_invalid", "ttl"],
      [{ from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" }, ttl: 601 }, 400, "parameter_invalid", "ttl"],
      [{ from: { asset: "USDC", amount: "1.0000001" }, to: { asset: "ETH" } }, 400, "amount_invalid", "from.amount"],
      [{ from: { asset: "USDC", amount: "0" }, to: { asset: "ETH" } }, 400, "amount_invalid", "from.amount"],
      [{ from: { asset: "USDC", amount: "5" }, to: { asset: "USDC" } }, 400, "parameter_invalid", "to.asset"],
      [{ from: { asset: "DOGE", amount: "5" }, to: { asset: "USDC" } }, 400, "asset_unsupported", "from.asset"],
      [{ from: { asset: "USDC", amount: "5" } }, 400, "parameter_missing", "to"],
      [{ from: { asset: "USDC", amount: "5" }, to: { asset: "ETH" }, slippage: 1 }, 400, "parameter_invalid", "slippage"],
      [{ from: { asset: "USDC", amount: "0.000001" }, to: { asset: "BTC" } }, 402, "no_route", "from.amount"],
    ])("refuses %j with %s %s and stores nothing", async (body, status, code, param) => {
      const res = await quote(body);
      const error = (await json(res)).error;
      expect(res.status).toBe(status);
      expect(error).toMatchObject({ code, param });
      expect((await w.harness.inspect.resources(w.accountId)).filter((r) => r.kind !== "audit_record")).toEqual([]);
    });

    it("answers 404 for another account's quote", async () => {
      const q = await json(await quote({ from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" } }));
      const other = await w.engine.accounts.create({ name: "Other" });
      const key = (await w.engine.accounts.createApiKey(other.id))._unsafeUnwrap().key;
      const res = await w.request("GET", `/v1/quotes/${q.id}`, { key });
      expect(res.status).toBe(404);
      expect((await json(res)).error.code).toBe("resource_missing");
    });

    it("quotes, swaps and settles: the input leaves, the output lands on destination_chain, events fire", async () => {
      await fund("ETH", "base", "3");
      await fund("ETH", "arbitrum", "2");
      const q = await json(await quote({ from: { asset: "ETH", amount: "4" }, to: { asset: "USDC" } }));
      expect((await swap({ quote: q.id, destination_chain: "polygon" }, null)).status).toBe(400); // Idempotency-Key required

      const res = await swap({ quote: q.id, destination_chain: "polygon" }, "swap-1");
      expect(res.status).toBe(200);
      const s = await json(res);
      expect(s).toMatchObject({
        object: "swap",
        status: "executing",
        quote: q.id,
        from: { asset: "ETH", amount: "4" },
        to: { asset: "USDC", amount: q.to.amount },
        destination_chain: "polygon",
        executed_rate: q.rate,
        refreshed: false,
        failure_code: null,
        settled: null,
      });
      // reserved, largest chain first: 3 on base, 1 on arbitrum
      const eth = await balance("ETH");
      expect(eth).toMatchObject({ available: "1", reserved: "4" });
      expect(eth.chains.base).toEqual({ available: "0", reserved: "3", pending: "0" });
      expect(eth.chains.arbitrum).toEqual({ available: "1", reserved: "1", pending: "0" });

      // a replay under the same key returns the same swap
      expect(await (await w.request("GET", `/v1/swaps/${s.id}`)).text()).toBe(JSON.stringify(s));
      const replay = await swap({ quote: q.id, destination_chain: "polygon" }, "swap-1");
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(await json(replay)).toEqual(s);

      await w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds: 0 } });
      const settled = await json(await w.request("GET", `/v1/swaps/${s.id}`));
      expect(settled).toMatchObject({ status: "settled", executed_rate: q.rate, to: { amount: q.to.amount } });
      expect(settled.settled).toMatch(ISO);
      expect(await balance("ETH")).toMatchObject({ available: "1", reserved: "0" });
      const usdc = await balance("USDC");
      expect(usdc.available).toBe(q.to.amount);
      expect(usdc.chains.polygon.available).toBe(q.to.amount);

      const types = (await json(await w.request("GET", "/v1/events?limit=50"))).data.map((e: any) => e.type);
      expect(types.filter((t: string) => t.startsWith("swap."))).toEqual(["swap.settled", "swap.executing"]);
      const [settledEvent] = (await json(await w.request("GET", "/v1/events?type=swap.settled"))).data;
      expect(settledEvent.data.object).toEqual(settled);
      await expectLedgerConsistent(w.harness.inspect, w.accountId, w.engine.accounts.house(false));

      // the quote backs one swap only
      const again = await swap({ quote: q.id, destination_chain: "polygon" });
      expect(again.status).toBe(400);
      expect((await json(again)).error).toMatchObject({ code: "quote_already_used", param: "quote" });
      // lists
      const list = await json(await w.request("GET", "/v1/swaps?status=settled"));
      expect(list.data.map((x: any) => x.id)).toEqual([s.id]);
      expect((await json(await w.request("GET", "/v1/swaps?status=failed"))).data).toEqual([]);
    });

    it("refuses a swap on an expired quote with 402 quote_expired, changing nothing", async () => {
      await fund("ETH", "base", "5");
      const q = await json(await quote({ from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" }, ttl: 5 }));
      w.clock.advance(5_000); // usable through expires_at
      w.clock.advance(1);
      const entriesBefore = await w.harness.inspect.entries(w.accountId);
      const res = await swap({ quote: q.id, destination_chain: "base" });
      expect(res.status).toBe(402);
      expect((await json(res)).error).toMatchObject({ type: "request_failed", code: "quote_expired", param: "quote" });
      expect(await w.harness.inspect.entries(w.accountId)).toEqual(entriesBefore);
      expect((await json(await w.request("GET", "/v1/swaps"))).data).toEqual([]);
      expect(await balance("ETH")).toMatchObject({ available: "5", reserved: "0" });
    });

    it("accepts a swap at exactly expires_at", async () => {
      await fund("ETH", "base", "5");
      const q = await json(await quote({ from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" }, ttl: 5 }));
      w.clock.advance(5_000);
      expect((await swap({ quote: q.id, destination_chain: "base" })).status).toBe(200);
    });

    it.each([
      [{ destination_chain: "bitcoin" }, "chain_unsupported", "destination_chain"],
      [{ destination_chain: "tron" }, "chain_unsupported", "destination_chain"],
      [{ quote: "qt_00000000000000000000000000" }, "resource_missing", "quote"],
      [{ refresh: { max_slippage: "1.5" } }, "parameter_invalid", "refresh.max_slippage"],
      [{ refresh: {} }, "parameter_missing", "refresh.max_slippage"],
    ])("refuses a swap with %j: %s", async (override, code, param) => {
      await fund("ETH", "base", "5");
      const q = await json(await quote({ from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" } }));
      const res = await swap({ quote: q.id, destination_chain: "base", ...override });
      expect((await json(res)).error).toMatchObject({ code, param });
      expect(await balance("ETH")).toMatchObject({ available: "5", reserved: "0" });
    });

    it("refuses a swap without the funds (402 insufficient_funds) and leaves the quote usable", async () => {
      await fund("ETH", "base", "0.5");
      const q = await json(await quote({ from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" } }));
      const res = await swap({ quote: q.id, destination_chain: "base" });
      expect(res.status).toBe(402);
      expect((await json(res)).error.code).toBe("insufficient_funds");
      await fund("ETH", "ethereum", "0.5");
      expect((await swap({ quote: q.id, destination_chain: "base" })).status).toBe(200);
    });

    it("fails a swap the venues refuse: swap.failed, and the funds come back", async () => {
      await fund("ETH", "base", "2");
      const q = await json(await quote({ from: { asset: "ETH", amount: "2" }, to: { asset: "USDC" } }));
      for (const v of q.venues) w.venues.halt(v.name);
      const s = await json(await swap({ quote: q.id, destination_chain: "base" }));
      await w.engine.worker.runDue();
      const failed = await json(await w.request("GET", `/v1/swaps/${s.id}`));
      expect(failed).toMatchObject({ status: "failed", failure_code: "venue_rejected", settled: null });
      expect(await balance("ETH")).toMatchObject({ available: "2", reserved: "0" });
      expect(await balance("USDC")).toMatchObject({ available: "0" });
      const [event] = (await json(await w.request("GET", "/v1/events?type=swap.failed"))).data;
      expect(event.data.object).toEqual(failed);
      await expectLedgerConsistent(w.harness.inspect, w.accountId, w.engine.accounts.house(false));
    });
  });

  describe(`swap refresh and venue outages over ${kind.name}`, () => {
    let w: TestWorld;
    let venue: ScriptedVenue;
    beforeEach(async () => {
      venue = new ScriptedVenue();
      // 1 ETH = 3,000 USDC, deep enough that a 1 ETH order barely moves it
      venue.setPool("ETH", 10_000n * 10n ** 18n, "USDC", 30_000_000n * 10n ** 6n);
      w = await testWorld(kind, { venues: [venue] });
      await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "ETH", chain: "base", amount: "10" } });
    });
    afterEach(() => w.close());

    const expiredQuote = async () => {
      const q = await (await w.request("POST", "/v1/quotes", { body: { from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" }, ttl: 5 } })).json();
      w.clock.advance(6_000);
      return q as any;
    };
    const swap = (body: unknown) => w.request("POST", "/v1/swaps", { body, headers: { "idempotency-key": `k-${Math.random()}` } });

    it("re-quotes an expired quote within refresh.max_slippage, and executes at the new rate", async () => {
      const q = await expiredQuote();
      venue.setPool("ETH", 10_000n * 10n ** 18n, "USDC", 29_900_000n * 10n ** 6n); // 0.33 % worse
      const tight = await swap({ quote: q.id, destination_chain: "base", refresh: { max_slippage: "0.003" } });
      expect(tight.status).toBe(402);
      expect((await tight.json()).error.code).toBe("quote_expired");
      const res = await swap({ quote: q.id, destination_chain: "base", refresh: { max_slippage: "0.004" } });
      expect(res.status).toBe(200);
      const s = await res.json();
      expect(s.refreshed).toBe(true);
      expect(Number(s.executed_rate)).toBeLessThan(Number(q.rate));
      expect(Number(s.executed_rate)).toBeGreaterThan(Number(q.rate) * 0.996);
      await w.engine.worker.runDue();
      const settled = await (await w.request("GET", `/v1/swaps/${s.id}`)).json();
      expect(settled).toMatchObject({ status: "settled", executed_rate: s.executed_rate });
      const usdc = (await (await w.request("GET", "/v1/balances")).json()).data.find((b: any) => b.asset === "USDC");
      expect(usdc.available).toBe(s.to.amount);
      await expectLedgerConsistent(w.harness.inspect, w.accountId, w.engine.accounts.house(false));
    });

    it("retries a venue that fails transiently, then settles with one execution", async () => {
      const q = await (await w.request("POST", "/v1/quotes", { body: { from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" } } })).json();
      venue.failing = true;
      const s = await (await swap({ quote: q.id, destination_chain: "base" })).json();
      await w.engine.worker.runDue();
      expect((await (await w.request("GET", `/v1/swaps/${s.id}`)).json()).status).toBe("executing");
      venue.failing = false;
      await w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds: 60 } });
      expect((await (await w.request("GET", `/v1/swaps/${s.id}`)).json()).status).toBe("settled");
      expect(venue.executions.map((e) => e.executionId)).toEqual([s.id]);
    });

    it("keeps a swap executing through a long venue outage (an error is no answer) and settles it once the venues are back", async () => {
      const q = await (await w.request("POST", "/v1/quotes", { body: { from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" } } })).json();
      venue.failing = true;
      const s = await (await swap({ quote: q.id, destination_chain: "base" })).json();
      await w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds: 3 * 3600 } });
      expect((await (await w.request("GET", `/v1/swaps/${s.id}`)).json()).status).toBe("executing");
      const eth = (await (await w.request("GET", "/v1/balances")).json()).data.find((b: any) => b.asset === "ETH");
      expect(eth).toMatchObject({ available: "9", reserved: "1" }); // still held: the venues may yet have executed
      venue.failing = false;
      // the next try is at most the capped backoff away: an hour, plus up to 10 % of jitter
      await w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds: 3960 + 60 } });
      expect((await (await w.request("GET", `/v1/swaps/${s.id}`)).json()).status).toBe("settled");
      expect(venue.executions.map((e) => e.executionId)).toEqual([s.id]);
    });
  });
}

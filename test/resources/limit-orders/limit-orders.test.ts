import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_ASSETS, formatUnits, parseAmount } from "../../../src/money";
import { OrderPricer } from "../../../src/quoting/order-pricer";
import { testWorld, type TestWorld } from "../../support/engine";
import { expectLedgerConsistent } from "../../support/ledger-checks";
import { ScriptedVenue } from "../../support/scripted-venue";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();
const ETH = 10n ** 18n;
const USDC = 10n ** 6n;

afterAll(closeSharedStorage);

/** An API amount in base units. */
const units = (text: string, asset: string) => parseAmount(text, DEFAULT_ASSETS.find((a) => a.code === asset)!, "amount", { allowZero: true })._unsafeUnwrap();

/** A pool of 10,000 ETH at `price` USDC each (0.3 % fee). */
function priceAt(venue: ScriptedVenue, price: bigint) {
  venue.setPool("ETH", 10_000n * ETH, "USDC", 10_000n * price * USDC);
}

for (const kind of storageKinds()) {
  describe(`limit orders over ${kind.name}`, () => {
    let w: TestWorld;
    let venue: ScriptedVenue;
    beforeEach(async () => {
      venue = new ScriptedVenue();
      priceAt(venue, 3_000n);
      w = await testWorld(kind, { venues: [venue] });
      await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "ETH", chain: "base", amount: "1000" } });
    });
    afterEach(() => w.close());

    const place = (body: Record<string, unknown>, key: string | null = `k-${Math.random()}`) =>
      w.request("POST", "/v1/limit_orders", {
        body: { from: { asset: "ETH", amount: "1000" }, to: { asset: "USDC" }, target_rate: "3050", expires_in: 3600, ...body },
        headers: key ? { "idempotency-key": key } : {},
      });
    const advance = (seconds: number) => w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds } });
    const get = async (id: string) => json(await w.request("GET", `/v1/limit_orders/${id}`));
    const balance = async (asset: string) => (await json(await w.request("GET", "/v1/balances"))).data.find((b: any) => b.asset === asset);
    const eventTypes = async () =>
      (await json(await w.request("GET", "/v1/events?limit=100"))).data.map((e: any) => e.type).filter((t: string) => t.startsWith("limit_order."));

    it("reserves, partially fills as prices move, is canceled, and the balance shows the release", async () => {
      expect((await place({}, null)).status).toBe(400); // Idempotency-Key required
      const res = await place({});
      expect(res.status).toBe(200);
      const order = await json(res);
      expect(order).toMatchObject({
        object: "limit_order",
        status: "working",
        cancellation_reason: null,
        from: { asset: "ETH", amount: "1000" },
        to: { asset: "USDC" },
        destination_chain: "base",
        target_rate: "3050",
        partial_fills: true,
        max_slippage: null,
        filled: { from_amount: "0", to_amount: "0" },
        reserved_amount: "1000",
        fills: [],
      });
      expect(order.id).toMatch(/^lo_[0-9a-z]{26}$/);
      expect(Date.parse(order.expires_at) - Date.parse(order.created)).toBe(3_600_000);
      // reserved, not escrowed: still in the balance, as reserved
      expect(await balance("ETH")).toMatchObject({ available: "0", reserved: "1000" });

      // the market (3,000) is below the target: nothing fills
      await advance(60);
      expect(await get(order.id)).toMatchObject({ status: "working", fills: [] });

      // the price rises to 3,100: the next matching step fills the tranche that still nets 3,050
      priceAt(venue, 3_100n);
      await advance(10);
      const partial = await get(order.id);
      expect(partial.status).toBe("partially_filled");
      expect(partial.fills).toHaveLength(1);
      const [fill] = partial.fills;
      expect(fill.id).toMatch(/^fil_/);
      expect(Number(fill.from_amount)).toBeGreaterThan(0);
      expect(Number(fill.from_amount)).toBeLessThan(1000);
      // never worse than the target, after all fees and rounding (exact)
      const from = units(fill.from_amount, "ETH");
      const to = units(fill.to_amount, "USDC");
      expect(to * ETH >= from * 3_050n * USDC).toBe(true);
      expect(Number(fill.rate)).toBeGreaterThanOrEqual(3050);
      expect(partial.filled).toEqual({ from_amount: fill.from_amount, to_amount: fill.to_amount });
      const left = 1000 - Number(fill.from_amount);
      expect(Number(partial.reserved_amount)).toBeCloseTo(left, 9);
      expect(await balance("ETH")).toMatchObject({ available: "0", reserved: partial.reserved_amount });
      expect((await balance("USDC")).chains.base.available).toBe(fill.to_amount);

      // cancel: the rest is released at once, the fill stays
      const canceledText = await (await w.request("DELETE", `/v1/limit_orders/${order.id}`)).text();
      expect(await (await w.request("GET", `/v1/limit_orders/${order.id}`)).text()).toBe(canceledText);
      const canceled = JSON.parse(canceledText);
      expect(canceled).toMatchObject({ status: "canceled", cancellation_reason: "requested", reserved_amount: "0", fills: partial.fills });
      expect(await balance("ETH")).toMatchObject({ available: partial.reserved_amount, reserved: "0" });
      expect((await balance("USDC")).available).toBe(fill.to_amount);
      expect(await eventTypes()).toEqual(["limit_order.canceled", "limit_order.partially_filled", "limit_order.working"]);
      const [canceledEvent] = (await json(await w.request("GET", "/v1/events?type=limit_order.canceled"))).data;
      expect(canceledEvent.data.object).toEqual(canceled);

      // nothing fills after cancel, and it cannot be canceled twice
      priceAt(venue, 4_000n);
      await advance(60);
      expect((await get(order.id)).fills).toHaveLength(1);
      const again = await w.request("DELETE", `/v1/limit_orders/${order.id}`);
      expect(again.status).toBe(400);
      expect((await json(again)).error.code).toBe("limit_order_not_cancelable");
      const reservations = await w.harness.inspect.reservations(w.accountId);
      expect(reservations.every((r) => r.status === "resolved" && r.remaining === 0n)).toBe(true);
      await expectLedgerConsistent(w.harness.inspect, w.accountId, w.engine.accounts.house(false));
    });

    it("fills in tranches until filled, each within max_slippage", async () => {
      priceAt(venue, 3_200n);
      const order = await json(await place({ amount: undefined, from: { asset: "ETH", amount: "300" }, target_rate: "3000.00", max_slippage: "0.0100" }));
      expect(order).toMatchObject({ target_rate: "3000", max_slippage: "0.01" }); // shortest form, as every decimal
      await advance(120);
      const done = await get(order.id);
      expect(done.status).toBe("filled");
      expect(done.fills.length).toBeGreaterThan(1);
      for (const f of done.fills) {
        expect(Number(f.price_impact)).toBeLessThanOrEqual(0.01);
        expect(Number(f.rate)).toBeGreaterThanOrEqual(3000);
      }
      expect(done.filled.from_amount).toBe("300");
      expect(done.reserved_amount).toBe("0");
      expect(await balance("ETH")).toMatchObject({ available: "700", reserved: "0" });
      expect((await balance("USDC")).available).toBe(done.filled.to_amount);
      const types = await eventTypes();
      expect(types[0]).toBe("limit_order.filled");
      expect(types.filter((t: string) => t === "limit_order.partially_filled")).toHaveLength(done.fills.length - 1);
      await expectLedgerConsistent(w.harness.inspect, w.accountId, w.engine.accounts.house(false));
    });

    it("fills an all-or-nothing order once and whole, or not at all until it expires", async () => {
      priceAt(venue, 3_100n);
      const whole = await json(await place({ from: { asset: "ETH", amount: "1" }, partial_fills: false }));
      const big = await json(await place({ from: { asset: "ETH", amount: "900" }, partial_fills: false, expires_in: 120 }));
      await advance(60);
      const small = await get(whole.id);
      expect(small).toMatchObject({ status: "filled", filled: { from_amount: "1" } });
      expect(small.fills).toHaveLength(1);
      expect((await get(big.id)).status).toBe("working"); // 900 ETH in one go nets well below 3,050
      await advance(61);
      const expired = await get(big.id);
      expect(expired).toMatchObject({ status: "canceled", cancellation_reason: "expired", fills: [], reserved_amount: "0" });
      expect(await balance("ETH")).toMatchObject({ available: "999", reserved: "0" });
      await expectLedgerConsistent(w.harness.inspect, w.accountId, w.engine.accounts.house(false));
    });

    it("expires: released at once, nothing fills after expires_at", async () => {
      const order = await json(await place({ expires_in: 60 }));
      await advance(60);
      expect((await get(order.id)).status).toBe("working"); // valid through expires_at
      priceAt(venue, 5_000n);
      await advance(1);
      expect(await get(order.id)).toMatchObject({ status: "canceled", cancellation_reason: "expired", fills: [] });
      expect(await balance("ETH")).toMatchObject({ available: "1000", reserved: "0" });
      await advance(60);
      expect((await get(order.id)).fills).toEqual([]);
      expect(await eventTypes()).toEqual(["limit_order.canceled", "limit_order.working"]);
    });

    it("keeps watching through a venue outage, and fills once the venue is back", async () => {
      const order = await json(await place({ from: { asset: "ETH", amount: "1" } }));
      venue.unreachable = true;
      priceAt(venue, 3_200n);
      await advance(300);
      expect(await get(order.id)).toMatchObject({ status: "working", fills: [] });
      const work = await w.harness.inspect.work();
      expect(work.find((j) => j.kind === "limit_order.match")).toMatchObject({ status: "ready" });
      venue.unreachable = false;
      await advance(10);
      expect((await get(order.id)).status).toBe("filled");
    });

    it.each([
      [{ target_rate: "0" }, "parameter_invalid", "target_rate"],
      [{ target_rate: "-3" }, "parameter_invalid", "target_rate"],
      [{ target_rate: "1e3" }, "parameter_invalid", "target_rate"],
      [{ target_rate: "0.0000000000000000001" }, "parameter_invalid", "target_rate"],
      [{ expires_in: 59 }, "parameter_invalid", "expires_in"],
      [{ expires_in: 2_592_001 }, "parameter_invalid", "expires_in"],
      [{ max_slippage: "1.5" }, "parameter_invalid", "max_slippage"],
      [{ partial_fills: "yes" }, "parameter_invalid", "partial_fills"],
      [{ to: { asset: "ETH" } }, "parameter_invalid", "to.asset"],
      [{ from: { asset: "ETH", amount: "1.0000000000000000001" } }, "amount_invalid", "from.amount"],
      [{ destination_chain: "bitcoin" }, "chain_unsupported", "destination_chain"],
      [{ from: { asset: "ETH", amount: "1001" } }, "insufficient_funds", undefined],
    ])("refuses %j with %s and reserves nothing", async (body, code, param) => {
      const res = await place(body);
      const error = (await json(res)).error;
      expect(error.code).toBe(code);
      if (param) expect(error.param).toBe(param);
      expect(await balance("ETH")).toMatchObject({ available: "1000", reserved: "0" });
      expect((await json(await w.request("GET", "/v1/limit_orders"))).data).toEqual([]);
    });

    it("answers 404 for an unknown or foreign order, and lists by status", async () => {
      expect((await w.request("DELETE", "/v1/limit_orders/lo_00000000000000000000000000")).status).toBe(404);
      const a = await json(await place({ from: { asset: "ETH", amount: "10" } }));
      const b = await json(await place({ from: { asset: "ETH", amount: "10" } }));
      await w.request("DELETE", `/v1/limit_orders/${a.id}`);
      expect((await json(await w.request("GET", "/v1/limit_orders?status=working"))).data.map((o: any) => o.id)).toEqual([b.id]);
      expect((await json(await w.request("GET", "/v1/limit_orders"))).data.map((o: any) => o.id)).toEqual([b.id, a.id]);
      const other = await w.engine.accounts.create({ name: "Other" });
      const key = (await w.engine.accounts.createApiKey(other.id))._unsafeUnwrap().key;
      expect((await w.request("GET", `/v1/limit_orders/${b.id}`, { key })).status).toBe(404);
      expect((await w.request("DELETE", `/v1/limit_orders/${b.id}`, { key })).status).toBe(404);
    });
  });
}

describe("limit orders on the simulated venues", () => {
  const kind = storageKinds()[0]!;

  /** Places an ETH order whose target the simulated path reaches within the hour, then waits an hour. */
  async function run(): Promise<any> {
    const w = await testWorld(kind);
    try {
      await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "ETH", chain: "base", amount: "500" } });
      // the net rate of selling 1 ETH along the path itself, now and at its best within the hour
      const rateAt = (t: number) => {
        const snapshots = w.venues.snapshotsAt("ETH", "USDC", t).sort((a, b) => (a.venue < b.venue ? -1 : 1));
        const p = new OrderPricer(snapshots, 20n).price(ETH)._unsafeUnwrap();
        return (p.netOut * 1_000_000n) / USDC; // micro-USDC per ETH
      };
      const start = w.clock.now();
      const now = rateAt(start);
      let best = now;
      for (let t = start; t <= start + 3_600_000; t += 10_000) {
        const r = rateAt(t);
        if (r > best) best = r;
      }
      expect(best > now + 1_000_000n).toBe(true); // the market does move, by more than a dollar
      const target = formatUnits((now + best) / 2n, 6); // out of reach now, within reach later
      const res = await w.request("POST", "/v1/limit_orders", {
        body: { from: { asset: "ETH", amount: "500" }, to: { asset: "USDC" }, target_rate: target, expires_in: 7200 },
        headers: { "idempotency-key": "sim" },
      });
      const order = await res.json();
      await w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds: 3600 } });
      return (await (await w.request("GET", `/v1/limit_orders/${order.id}`)).json()) as any;
    } finally {
      await w.close();
    }
  }

  it("fill as the seeded prices move with the clock, reproducibly", async () => {
    const first = await run();
    expect(first.fills.length).toBeGreaterThan(0);
    expect(Date.parse(first.fills[0].created)).toBeGreaterThan(Date.parse(first.created)); // it waited for the market
    for (const f of first.fills) expect(Number(f.rate)).toBeGreaterThanOrEqual(Number(first.target_rate));
    const second = await run();
    const shape = (o: any) => o.fills.map((f: any) => [f.from_amount, f.to_amount, f.created]);
    expect(shape(second)).toEqual(shape(first));
  });
});

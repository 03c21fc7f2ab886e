import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { testWorld, type TestWorld } from "../support/engine";
import { closeSharedStorage, storageKinds } from "../support/storage";

const json = (res: Response): Promise<any> => res.json();
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

for (const kind of storageKinds()) {
  describe(`metadata over HTTP on ${kind.name}`, () => {
    let w: TestWorld;
    let key = 0;
    beforeEach(async () => {
      w = await testWorld(kind);
    });
    afterEach(() => w.close());

    const post = (path: string, body?: unknown) =>
      w.request("POST", path, { ...(body !== undefined ? { body } : {}), headers: { "Idempotency-Key": `k-${key++}` } });
    const get = async (path: string) => json(await w.request("GET", path));
    const recipient = async (metadata?: unknown) =>
      post("/v1/recipients", { name: "Ada", chain_addresses: { base: BASE }, ...(metadata !== undefined ? { metadata } : {}) });
    const fund = (asset: string, amount: string) => post("/v1/test_helpers/balances/fund", { asset, chain: "base", amount });

    it("stores metadata on create (an empty value is not stored), returns it on the object and in its events", async () => {
      const rcp = await json(await recipient({ crm_id: "c-42", unused: "" }));
      expect(rcp.metadata).toEqual({ crm_id: "c-42" });
      expect((await get(`/v1/recipients/${rcp.id}`)).metadata).toEqual({ crm_id: "c-42" });
      await fund("USDC", "100");
      const payout = await json(await post("/v1/payouts", { amount: "5", asset: "USDC", recipient: rcp.id, metadata: { order_id: "ord_1" } }));
      expect(payout.metadata).toEqual({ order_id: "ord_1" });
      const plain = await json(await post("/v1/payouts", { amount: "1", asset: "USDC", recipient: rcp.id }));
      expect(plain.metadata).toEqual({});
      const events = (await get("/v1/events?limit=100")).data.filter((e: any) => e.type.startsWith("payout.") && e.data.object.id === payout.id);
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) expect(e.data.object.metadata).toEqual({ order_id: "ord_1" });
    });

    it.each([
      [{ metadata: "x" }, "metadata"],
      [{ metadata: ["a"] }, "metadata"],
      [{ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) }, "metadata"],
      [{ metadata: { ["k".repeat(41)]: "v" } }, `metadata[${"k".repeat(41)}]`],
      [{ metadata: { "a[b]": "v" } }, "metadata[a[b]]"],
      [{ metadata: { n: 5 } }, "metadata[n]"],
      [{ metadata: { n: null } }, "metadata[n]"],
      [{ metadata: { long: "v".repeat(501) } }, "metadata[long]"],
    ])("refuses bad metadata (case %#) with parameter_invalid naming its parameter, and creates nothing", async (body, param) => {
      const res = await post("/v1/recipients", { name: "Ada", chain_addresses: { base: BASE }, ...body });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toMatchObject({ type: "invalid_request_error", code: "parameter_invalid", param });
      expect((await get("/v1/recipients")).data).toEqual([]);
    });

    it("keeps any key as data, __proto__ included, in every storage", async () => {
      const res = await w.request("POST", "/v1/recipients", {
        body: '{"name":"Ada","chain_addresses":{"base":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"},"metadata":{"__proto__":"x","constructor":"y"}}',
      });
      expect(res.status).toBe(200);
      const created = await json(res);
      expect(Object.entries(created.metadata)).toEqual([
        ["__proto__", "x"],
        ["constructor", "y"],
      ]);
      expect(Object.entries((await get(`/v1/recipients/${created.id}`)).metadata)).toEqual(Object.entries(created.metadata));
      // keys answer in one order on every storage (PostgreSQL's jsonb keeps its own)
      const ordered = await json(await recipient({ zz: "1", b: "2", aaa: "3", A: "4" }));
      expect(Object.keys(ordered.metadata)).toEqual(["A", "aaa", "b", "zz"]);
      expect(Object.keys((await get(`/v1/recipients/${ordered.id}`)).metadata)).toEqual(["A", "aaa", "b", "zz"]);
    });

    it("takes the limits exactly: 50 keys of 40 characters, values of 500", async () => {
      const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${String(i).padStart(2, "0")}${"k".repeat(38)}`, "v".repeat(500)]));
      const res = await recipient(metadata);
      expect(res.status).toBe(200);
      expect((await json(res)).metadata).toEqual(metadata);
    });

    it('updates metadata Stripe\'s way: keys set, "" removes one, others kept; over 50 keys changes nothing', async () => {
      await fund("USDC", "10");
      const rcp = await json(await recipient({ a: "1", b: "2" }));
      const payout = await json(await post("/v1/payouts", { amount: "1", asset: "USDC", recipient: rcp.id, metadata: { a: "1", b: "2" } }));
      for (const path of [`/v1/payouts/${payout.id}`, `/v1/recipients/${rcp.id}`]) {
        const res = await post(path, { metadata: { a: "", c: "3", b: "two" } });
        expect(res.status).toBe(200);
        expect((await json(res)).metadata).toEqual({ b: "two", c: "3" });
        expect((await get(path)).metadata).toEqual({ b: "two", c: "3" });
        const many = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`m${i}`, "v"]));
        const over = await post(path, { metadata: many });
        expect(over.status).toBe(400);
        expect((await json(over)).error).toMatchObject({ code: "parameter_invalid", param: "metadata" });
        expect((await get(path)).metadata).toEqual({ b: "two", c: "3" });
        expect((await post(path, {})).status).toBe(200);
        expect((await get(path)).metadata).toEqual({ b: "two", c: "3" });
      }
      // nothing else of a payout changes on request
      const refused = await post(`/v1/payouts/${payout.id}`, { amount: "2" });
      expect(refused.status).toBe(400);
      expect((await json(refused)).error).toMatchObject({ code: "parameter_invalid", param: "amount" });
      const missing = await post("/v1/payouts/po_nobody", { metadata: { a: "1" } });
      expect(missing.status).toBe(404);
      // a payment intent and a webhook endpoint too
      const pi = await json(await post("/v1/payment_intents", { amount: "5", asset: "USDC", metadata: { cart: "9" } }));
      expect(pi.metadata).toEqual({ cart: "9" });
      expect((await json(await post(`/v1/payment_intents/${pi.id}`, { metadata: { cart: "", invoice: "in_1" } }))).metadata).toEqual({ invoice: "in_1" });
      const we = await json(await post("/v1/webhook_endpoints", { url: "https://hooks.example.com/x", enabled_events: ["*"], metadata: { team: "ops" } }));
      expect(we.metadata).toEqual({ team: "ops" });
      const updated = await json(await post(`/v1/webhook_endpoints/${we.id}`, { description: "d", metadata: { team: "", owner: "ada" } }));
      expect(updated).toMatchObject({ description: "d", metadata: { owner: "ada" } });
    });

    it("finds objects by search=metadata[key]:value, paging with cursors both ways", async () => {
      await fund("USDC", "100");
      const rcp = await json(await recipient({ tier: "gold" }));
      await recipient({ tier: "silver" });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const p = await json(
          await post("/v1/payouts", { amount: "1", asset: "USDC", recipient: rcp.id, metadata: { order: i % 2 ? "odd" : "even", n: String(i) } }),
        );
        ids.push(p.id);
        w.clock.advance(1000);
      }
      const even = [ids[4], ids[2], ids[0]];
      const search = encodeURIComponent("metadata[order]:even");
      expect((await get(`/v1/payouts?search=${search}`)).data.map((p: any) => p.id)).toEqual(even);
      const first = await get(`/v1/payouts?search=${search}&limit=2`);
      expect(first.data.map((p: any) => p.id)).toEqual(even.slice(0, 2));
      const second = await get(`/v1/payouts?search=${search}&limit=2&starting_after=${first.next_cursor}`);
      expect(second.data.map((p: any) => p.id)).toEqual(even.slice(2));
      expect((await get(`/v1/payouts?search=${search}&limit=2&ending_before=${second.previous_cursor}`)).data.map((p: any) => p.id)).toEqual(even.slice(0, 2));
      // a cursor is bound to its search
      const other = await w.request("GET", `/v1/payouts?search=${encodeURIComponent("metadata[order]:odd")}&starting_after=${first.next_cursor}`);
      expect(other.status).toBe(400);
      expect((await get(`/v1/payouts?search=${encodeURIComponent("metadata[n]:3")}`)).data.map((p: any) => p.id)).toEqual([ids[3]]);
      expect((await get(`/v1/payouts?search=${encodeURIComponent("metadata[order]:eve")}`)).data).toEqual([]);
      expect((await get(`/v1/payouts?search=${encodeURIComponent("metadata[nope]:even")}`)).data).toEqual([]);
      expect((await get(`/v1/recipients?search=${encodeURIComponent("metadata[tier]:gold")}`)).data.map((r: any) => r.id)).toEqual([rcp.id]);
      // an update is found at once, and a removed key no longer is
      await post(`/v1/payouts/${ids[0]}`, { metadata: { order: "" } });
      expect((await get(`/v1/payouts?search=${search}`)).data.map((p: any) => p.id)).toEqual([ids[4], ids[2]]);
    });

    it("takes metadata on every other create: batches and their legs, quotes, swaps, limit orders, reports", async () => {
      await fund("USDC", "100");
      await fund("ETH", "10");
      const rcp = await json(await recipient());
      const batch = await json(
        await post("/v1/payouts/batches", {
          funding: { asset: "USDC", source: "auto" },
          metadata: { payroll: "march" },
          legs: [
            { row: 0, amount: "1", recipient: rcp.id, metadata: { employee: "e-1" } },
            { row: 1, amount: "1", recipient: rcp.id },
          ],
        }),
      );
      expect(batch.metadata).toEqual({ payroll: "march" });
      const legs = (await get("/v1/payouts")).data.sort((a: any, b: any) => a.row - b.row);
      expect(legs.map((p: any) => p.metadata)).toEqual([{ employee: "e-1" }, {}]);
      expect((await get(`/v1/payouts/batches?search=${encodeURIComponent("metadata[payroll]:march")}`)).data.map((b: any) => b.id)).toEqual([batch.id]);
      const badLeg = await post("/v1/payouts/batches", {
        funding: { asset: "USDC", source: "auto" },
        legs: [{ row: 0, amount: "1", recipient: rcp.id, metadata: { n: 1 } }],
      });
      expect((await json(badLeg)).error.errors).toEqual([{ row: 0, param: "legs[0].metadata[n]", code: "parameter_invalid", message: expect.any(String) }]);

      const quote = await json(await post("/v1/quotes", { from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" }, metadata: { desk: "fx" } }));
      expect(quote.metadata).toEqual({ desk: "fx" });
      const swap = await json(await post("/v1/swaps", { quote: quote.id, destination_chain: "base", metadata: { ticket: "t-7" } }));
      expect(swap.metadata).toEqual({ ticket: "t-7" });
      expect((await get(`/v1/swaps/${swap.id}`)).metadata).toEqual({ ticket: "t-7" });
      const order = await json(
        await post("/v1/limit_orders", {
          from: { asset: "ETH", amount: "1" },
          to: { asset: "USDC" },
          target_rate: "1000000",
          expires_in: 3600,
          metadata: { bot: "b1" },
        }),
      );
      expect(order.metadata).toEqual({ bot: "b1" });
      const report = await json(await post("/v1/reports", { type: "ledger_entries", metadata: { month: "03" } }));
      expect(report.metadata).toEqual({ month: "03" });
    });
  });
}

afterAll(closeSharedStorage);

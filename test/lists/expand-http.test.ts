import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHttpDelivery } from "../../adapters/delivery";
import { testWorld, type TestWorld } from "../support/engine";
import { TestReceiver } from "../support/receiver";
import { closeSharedStorage, storageKinds } from "../support/storage";
import { registerEndpoint, runNext } from "../support/webhooks";

const json = (res: Response): Promise<any> => res.json();
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

afterAll(() => closeSharedStorage());

/**
 * `expand[]` on every reference the seed shows (Stripe's expansion): the payout's recipient and
 * batch, the swap's quote, the delivery's event, the settlement's payment intent, ledger entries
 * and settlements; on retrieve and, as `data.<field>`, on lists; written `expand=x`, `expand[]=x`
 * or `expand[0]=x` alike.
 */
for (const kind of storageKinds()) {
  describe(`expand on ${kind.name}`, () => {
    let w: TestWorld;
    let key = 0;
    beforeEach(async () => {
      w = await testWorld(kind, { delivery: createHttpDelivery({ allowPrivateNetworks: true }) });
    });
    afterEach(() => w.close());

    const post = (path: string, body?: unknown) =>
      w.request("POST", path, { ...(body !== undefined ? { body } : {}), headers: { "Idempotency-Key": `x-${key++}` } });
    const get = async (path: string) => {
      const res = await w.request("GET", path);
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body;
    };
    const fund = (asset: string, amount: string) => post("/v1/test_helpers/balances/fund", { asset, chain: "base", amount });
    const recipient = async (name = "Alice") => json(await post("/v1/recipients", { name, chain_addresses: { base: ADDRESS } }));

    it("replaces a payout's recipient, batch and ledger entries, in any of the three spellings", async () => {
      await fund("USDC", "100");
      const rcp = await recipient();
      const single = await json(await post("/v1/payouts", { amount: "5", asset: "USDC", recipient: rcp.id }));
      const batch = await json(
        await post("/v1/payouts/batches", { funding: { asset: "USDC", source: "auto" }, legs: [{ row: 0, amount: "2", recipient: rcp.id }] }),
      );
      await w.engine.worker.runDue();
      const inBatch = (await get("/v1/payouts?limit=1")).data[0];
      expect(inBatch.batch).toBe(batch.id);

      const plain = await get(`/v1/payouts/${inBatch.id}`);
      expect(plain.recipient).toBe(rcp.id);
      for (const query of [
        "expand[]=recipient&expand[]=batch&expand[]=ledger_entries",
        "expand[0]=recipient&expand[1]=batch&expand[2]=ledger_entries",
        "expand=recipient&expand[]=batch&expand[]=ledger_entries",
      ]) {
        const expanded = await get(`/v1/payouts/${inBatch.id}?${query}`);
        expect(expanded.recipient, query).toEqual(await get(`/v1/recipients/${rcp.id}`));
        expect(expanded.batch, query).toEqual(await get(`/v1/payouts/batches/${batch.id}`));
        expect(
          expanded.ledger_entries.map((e: any) => e.id),
          query,
        ).toEqual(plain.ledger_entries);
        expect(expanded.ledger_entries[0], query).toMatchObject({ object: "ledger_entry", resource: inBatch.id });
        // everything else is as it was
        expect({ ...expanded, recipient: rcp.id, batch: batch.id, ledger_entries: plain.ledger_entries }).toEqual(plain);
      }
      const one = await get(`/v1/payouts/${single.id}?expand=batch`);
      expect(one.batch).toBeNull(); // nothing to expand
      expect(one.recipient).toBe(rcp.id);
    });

    it("expands every item of a list with data.<field>, and binds the cursor to it", async () => {
      await fund("USDC", "100");
      const alice = await recipient("Alice");
      const bob = await recipient("Bob");
      for (const [i, r] of [alice, bob, alice, bob, alice].entries()) {
        await post("/v1/payouts", { amount: String(i + 1), asset: "USDC", recipient: r.id });
      }
      const first = await get("/v1/payouts?limit=2&expand[]=data.recipient");
      expect(first.data.map((p: any) => p.recipient.name)).toEqual(["Alice", "Bob"]);
      expect(first.data.every((p: any) => p.recipient.object === "recipient")).toBe(true);
      const second = await get(`/v1/payouts?limit=2&expand[]=data.recipient&starting_after=${first.next_cursor}`);
      expect(second.data.map((p: any) => p.recipient.name)).toEqual(["Alice", "Bob"]);
      // the bare form is an alias of data.<field> on lists
      const alias = await get(`/v1/payouts?limit=2&expand[]=recipient&starting_after=${first.next_cursor}`);
      expect(alias).toEqual(second);
      // a cursor minted for one expansion is refused for another
      const refused = await w.request("GET", `/v1/payouts?limit=2&starting_after=${first.next_cursor}`);
      expect(refused.status).toBe(400);
      expect((await json(refused)).error.code).toBe("cursor_invalid");
    });

    it("keeps the id of a recipient that no longer exists", async () => {
      await fund("USDC", "10");
      const rcp = await recipient();
      const payout = await json(await post("/v1/payouts", { amount: "1", asset: "USDC", recipient: rcp.id }));
      expect((await w.request("DELETE", `/v1/recipients/${rcp.id}`)).status).toBe(200);
      expect((await get(`/v1/payouts/${payout.id}?expand[]=recipient`)).recipient).toBe(rcp.id);
    });

    it("replaces a swap's quote", async () => {
      await fund("ETH", "2");
      const quote = await json(await post("/v1/quotes", { from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" } }));
      const swap = await json(await post("/v1/swaps", { quote: quote.id, destination_chain: "base" }));
      expect((await get(`/v1/swaps/${swap.id}?expand[]=quote`)).quote).toEqual(await get(`/v1/quotes/${quote.id}`));
      expect((await get("/v1/swaps?expand[]=data.quote")).data[0].quote.id).toBe(quote.id);
      expect((await get(`/v1/swaps/${swap.id}`)).quote).toBe(quote.id);
    });

    it("replaces a delivery's event", async () => {
      const receiver = await TestReceiver.start();
      try {
        const ep = await registerEndpoint(w, receiver.url(), ["balance.updated"]);
        await fund("USDC", "1");
        await runNext(w, 0);
        await runNext(w, 0);
        const log = await get(`/v1/webhook_endpoints/${ep.id}/deliveries?expand[]=data.event`);
        expect(log.data).toHaveLength(1);
        const [entry] = log.data;
        expect(entry.event).toMatchObject({ object: "event", type: "balance.updated" });
        expect(entry.event).toEqual(await get(`/v1/events/${entry.event.id}`));
        expect((await get(`/v1/webhook_endpoints/${ep.id}/deliveries`)).data[0].event).toBe(entry.event.id);
      } finally {
        await receiver.close();
      }
    });

    it("replaces a payment intent's settlements, and their payment intent in turn", async () => {
      const pi = await json(await post("/v1/payment_intents", { amount: "25", asset: "USDC", chains: ["base"] }));
      await post(`/v1/test_helpers/payment_intents/${pi.id}/pay`, { chain: "base", amount: "25" });
      await post("/v1/test_helpers/clock/advance", { seconds: 30 });
      const plain = await get(`/v1/payment_intents/${pi.id}`);
      expect(plain.status).toBe("succeeded");
      const deep = await get(`/v1/payment_intents/${pi.id}?expand[]=settlements.payment_intent&expand[]=ledger_entries`);
      expect(deep.settlements).toHaveLength(1);
      expect(deep.settlements[0]).toMatchObject({ object: "settlement", id: plain.settlements[0] });
      expect(deep.settlements[0].payment_intent).toEqual(plain);
      expect(deep.ledger_entries.map((e: any) => e.id)).toEqual(plain.ledger_entries);
      const listed = await get("/v1/payment_intents?expand[]=data.settlements");
      expect(listed.data[0].settlements[0].payment_intent).toBe(pi.id);
    });

    it("refuses paths a resource does not have, naming the one, and expand where nothing expands", async () => {
      const refused = async (path: string, param: string) => {
        const res = await w.request("GET", path);
        expect(res.status, path).toBe(400);
        expect((await json(res)).error, path).toMatchObject({ code: "parameter_invalid", param });
      };
      await refused("/v1/payouts/po_x?expand[]=legs", "expand[0]");
      await refused("/v1/payouts/po_x?expand[]=recipient&expand[]=data.recipient", "expand[1]");
      await refused("/v1/payouts?expand[]=data.legs", "expand[0]");
      await refused("/v1/swaps?expand=recipient", "expand[0]");
      await refused(`/v1/payouts?${Array.from({ length: 11 }, () => "expand[]=data.batch").join("&")}`, "expand");
      await refused("/v1/balances?expand[]=data.asset", "expand");
    });

    it("describes expand[] in the OpenAPI document with its other spellings", async () => {
      const doc = await get("/v1/openapi.json");
      const param = doc.paths["/v1/payouts"].get.parameters.find((p: any) => p.name === "expand[]");
      expect(param).toMatchObject({ in: "query", style: "form", explode: true, schema: { type: "array" } });
      expect(param.schema.items.enum).toEqual(["data.recipient", "data.batch", "data.ledger_entries", "recipient", "batch", "ledger_entries"]);
      expect(param.description).toContain("expand=");
      expect(param.description).toContain("expand[0]=");
      for (const [path, expected] of [
        ["/v1/payouts/{id}", ["recipient", "batch", "ledger_entries"]],
        ["/v1/swaps/{id}", ["quote"]],
        ["/v1/payment_intents/{id}", ["settlements", "ledger_entries", "settlements.payment_intent"]],
        ["/v1/webhook_endpoints/{id}/deliveries", ["data.event", "event"]],
      ] as const) {
        const p = doc.paths[path].get.parameters.find((x: any) => x.name === "expand[]");
        expect(p.schema.items.enum, path).toEqual(expected);
      }
    });
  });
}

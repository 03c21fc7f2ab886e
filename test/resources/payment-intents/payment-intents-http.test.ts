import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();

for (const kind of storageKinds()) {
  describe(`payment intents over HTTP on ${kind.name}`, () => {
    let w: TestWorld;
    let key = 0;
    beforeEach(async () => {
      w = await testWorld(kind);
    });
    afterEach(() => w.close());

    const post = (path: string, body?: unknown) =>
      w.request("POST", path, { ...(body !== undefined ? { body } : {}), headers: { "Idempotency-Key": `k-${key++}` } });
    const get = async (path: string) => json(await w.request("GET", path));
    const create = async (body: Record<string, unknown>) => {
      const res = await post("/v1/payment_intents", { asset: "USDC", chains: ["base", "solana"], ...body });
      expect(res.status).toBe(200);
      return json(res);
    };
    const pay = async (id: string, body: Record<string, unknown>) => {
      const res = await post(`/v1/test_helpers/payment_intents/${id}/pay`, body);
      expect(res.status).toBe(200);
      return json(res);
    };
    const mine = (chain: string, blocks: number) => post(`/v1/test_helpers/chains/${chain}/advance`, { blocks });
    const usdc = async () => (await get("/v1/balances")).data.find((b: any) => b.asset === "USDC");
    const events = async (type: string) => (await get(`/v1/events?type=${type}&limit=100`)).data;

    it("credits an exact payment as pending, then available at finality (succeeded)", async () => {
      const pi = await create({ amount: "25", reference: "order_1001" });
      expect(pi).toMatchObject({ object: "payment_intent", status: "requires_payment", amount: "25", amount_received: "0", tolerance: "0" });
      expect(pi.id).toMatch(/^pi_/);
      expect(pi.deposit_addresses.base).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(Object.keys(pi.deposit_addresses).sort()).toEqual(["base", "solana"]);
      expect(Date.parse(pi.expires_at) - Date.parse(pi.created)).toBe(3_600_000);

      const seen = await pay(pi.id, { chain: "base", amount: "25" });
      expect(seen).toMatchObject({ status: "processing", amount_received: "0", amount_pending: "25" });
      expect(await usdc()).toMatchObject({ available: "0", pending: "25" });
      expect((await events("payment_intent.processing"))[0].data.object.id).toBe(pi.id);

      await mine("base", 6);
      const done = await get(`/v1/payment_intents/${pi.id}?expand[]=settlements&expand[]=ledger_entries`);
      expect(done).toMatchObject({ status: "succeeded", amount_received: "25", amount_pending: "0", amount_excess: "0" });
      expect(done.settlements).toEqual([
        expect.objectContaining({ object: "settlement", payment_intent: pi.id, chain: "base", amount: "25", finality: "final", status: "credited" }),
      ]);
      expect(done.ledger_entries.map((e: any) => [e.balance_type, e.amount])).toEqual([
        ["pending", "25"],
        ["pending", "-25"],
        ["available", "25"],
      ]);
      expect(await usdc()).toMatchObject({ available: "25", pending: "0" });
      const [succeeded] = await events("payment_intent.succeeded");
      expect(succeeded.data.object).toMatchObject({
        id: pi.id,
        status: "succeeded",
        amount: "25",
        asset: "USDC",
        amount_received: "25",
        reference: "order_1001",
      });
    });

    it("adds several deposits up; an underpayment beyond tolerance is partially_paid, within it succeeded", async () => {
      const short = await create({ amount: "100", tolerance: "0.0100" });
      expect(short.tolerance).toBe("0.01"); // decimals come back in their shortest form
      await pay(short.id, { chain: "base", amount: "50" });
      await pay(short.id, { chain: "solana", amount: "48.99" });
      await mine("base", 6);
      await mine("solana", 8);
      expect(await get(`/v1/payment_intents/${short.id}`)).toMatchObject({ status: "partially_paid", amount_received: "98.99" });
      expect((await events("payment_intent.partially_paid"))[0].data.object.id).toBe(short.id);

      await pay(short.id, { chain: "base", amount: "0.01" }); // 99.00 = 100 × (1 − 0.01): enough
      await mine("base", 6);
      expect(await get(`/v1/payment_intents/${short.id}`)).toMatchObject({ status: "succeeded", amount_received: "99" });
    });

    it("succeeds on an overpayment and records the excess", async () => {
      const pi = await create({ amount: "25" });
      await pay(pi.id, { chain: "solana", amount: "30.5" });
      await mine("solana", 8);
      expect(await get(`/v1/payment_intents/${pi.id}`)).toMatchObject({ status: "succeeded", amount_received: "30.5", amount_excess: "5.5" });
      expect((await usdc()).available).toBe("30.5");
    });

    it("records a payment on an unsupported chain or in another asset without crediting it", async () => {
      const pi = await create({ amount: "10", chains: ["base"] });
      const wrong = await pay(pi.id, { chain: "ethereum", amount: "10" }); // the same EVM address, the wrong chain
      expect(wrong.status).toBe("unsupported_chain");
      await mine("ethereum", 4);
      const eurc = await create({ amount: "10", chains: ["base"] });
      await pay(eurc.id, { chain: "base", amount: "10", asset: "EURC" });
      await mine("base", 6);
      for (const id of [pi.id, eurc.id]) {
        const got = await get(`/v1/payment_intents/${id}?expand[]=settlements`);
        expect(got).toMatchObject({ status: "unsupported_chain", amount_received: "0" });
        expect(got.settlements[0]).toMatchObject({ status: "not_credited" });
      }
      expect((await get(`/v1/payment_intents/${pi.id}?expand[]=settlements`)).settlements[0].reason).toBe("unsupported_chain");
      expect((await get(`/v1/payment_intents/${eurc.id}?expand[]=settlements`)).settlements[0].reason).toBe("unsupported_asset");
      expect(await usdc()).toMatchObject({ available: "0", pending: "0" });
      expect((await events("payment_intent.unsupported_chain")).map((e: any) => e.data.object.id).sort()).toEqual([eurc.id, pi.id].sort());
      // a right payment afterwards still counts
      await pay(pi.id, { chain: "base", amount: "10" });
      await mine("base", 6);
      expect((await get(`/v1/payment_intents/${pi.id}`)).status).toBe("succeeded");
    });

    it("expires unpaid, and a deposit after expiry is recorded but not credited", async () => {
      const pi = await create({ amount: "10", expires_in: 60 });
      await post("/v1/test_helpers/clock/advance", { seconds: 61 });
      expect((await get(`/v1/payment_intents/${pi.id}`)).status).toBe("expired");
      expect((await events("payment_intent.expired"))[0].data.object.id).toBe(pi.id);
      await pay(pi.id, { chain: "base", amount: "10" });
      await mine("base", 6);
      const late = await get(`/v1/payment_intents/${pi.id}?expand[]=settlements`);
      expect(late).toMatchObject({ status: "expired", amount_received: "0" });
      expect(late.settlements[0]).toMatchObject({ status: "not_credited", reason: "after_expiry", finality: "final" });
      expect(await usdc()).toMatchObject({ available: "0", pending: "0" });
    });

    it("reverses a succeeded payment removed by a reorganisation, with new entries", async () => {
      const pi = await create({ amount: "25" });
      await pay(pi.id, { chain: "base", amount: "25" });
      await mine("base", 6);
      expect((await get(`/v1/payment_intents/${pi.id}`)).status).toBe("succeeded");
      const reorg = await post("/v1/test_helpers/chains/base/reorg", { depth: 10 });
      expect(await json(reorg)).toMatchObject({ object: "test_chain", chain: "base", reorganized: 1 });
      const reverted = await get(`/v1/payment_intents/${pi.id}?expand[]=ledger_entries&expand[]=settlements`);
      expect(reverted).toMatchObject({ status: "reverted", amount_received: "0" });
      expect(reverted.settlements[0]).toMatchObject({ finality: "reverted", status: "reversed", unrecovered: "0" });
      expect(reverted.ledger_entries.map((e: any) => [e.balance_type, e.amount])).toEqual([
        ["pending", "25"],
        ["pending", "-25"],
        ["available", "25"],
        ["available", "-25"],
      ]);
      expect(await usdc()).toMatchObject({ available: "0", pending: "0" });
      expect((await events("payment_intent.reverted"))[0].data.object).toMatchObject({ id: pi.id, status: "reverted" });
    });

    it("takes a pending deposit back when a reorganisation removes it before finality", async () => {
      const pi = await create({ amount: "5" });
      await pay(pi.id, { chain: "base", amount: "5" });
      await mine("base", 2);
      expect(await usdc()).toMatchObject({ pending: "5" });
      await post("/v1/test_helpers/chains/base/reorg", { depth: 3 });
      expect(await get(`/v1/payment_intents/${pi.id}`)).toMatchObject({ status: "requires_payment", amount_pending: "0" });
      expect(await usdc()).toMatchObject({ available: "0", pending: "0" });
      const back = await events("payment_intent.requires_payment");
      expect(back.map((e: any) => e.data.object)).toEqual([expect.objectContaining({ id: pi.id, status: "requires_payment" })]);
    });

    it("announces payment_intent.requires_payment when a reorganisation takes a partially paid intent's deposits away", async () => {
      const pi = await create({ amount: "5" });
      await pay(pi.id, { chain: "base", amount: "3" });
      await mine("base", 6);
      expect(await get(`/v1/payment_intents/${pi.id}`)).toMatchObject({ status: "partially_paid", amount_received: "3" });
      expect(await usdc()).toMatchObject({ available: "3" });
      await post("/v1/test_helpers/chains/base/reorg", { depth: 10 });
      const now = await get(`/v1/payment_intents/${pi.id}`);
      expect(now).toMatchObject({ status: "requires_payment", amount_received: "0" });
      const [event, ...more] = await events("payment_intent.requires_payment");
      expect(more).toEqual([]);
      expect(event.data.object).toEqual(now);
      expect(await usdc()).toMatchObject({ available: "0", pending: "0" });
      // and it can still be paid in full
      await pay(pi.id, { chain: "base", amount: "5" });
      await mine("base", 6);
      expect((await get(`/v1/payment_intents/${pi.id}`)).status).toBe("succeeded");
    });

    it("validates, lists and searches", async () => {
      for (const [body, code, param] of [
        [{ amount: "1.0000001" }, "amount_invalid", "amount"],
        [{ amount: "1", chains: ["bitcoin"] }, "chain_unsupported", "chains[0]"],
        [{ amount: "1", tolerance: "1" }, "parameter_invalid", "tolerance"],
        [{ amount: "1", tolerance: "-0.1" }, "parameter_invalid", "tolerance"],
        [{ amount: "1", expires_in: 10 }, "parameter_invalid", "expires_in"],
      ] as const) {
        const res = await post("/v1/payment_intents", { asset: "USDC", ...body });
        expect(res.status).toBe(400);
        expect((await json(res)).error).toMatchObject({ code, param });
      }
      const a = await create({ amount: "1", reference: "inv_a1" });
      const b = await create({ amount: "2", reference: "inv_b1" });
      expect((await get("/v1/payment_intents?search=inv_a")).data.map((p: any) => p.id)).toEqual([a.id]);
      expect((await get(`/v1/payment_intents?search=${b.id}`)).data.map((p: any) => p.id)).toEqual([b.id]);
      expect((await get("/v1/payment_intents?status=requires_payment")).data).toHaveLength(2);
      expect((await w.request("GET", "/v1/payment_intents/pi_nope")).status).toBe(404);
    });
  });
}

afterAll(closeSharedStorage);

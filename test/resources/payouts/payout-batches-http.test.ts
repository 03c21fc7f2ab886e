import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

for (const kind of storageKinds()) {
  describe(`payout batches over HTTP on ${kind.name}`, () => {
    let w: TestWorld;
    let key = 0;
    beforeEach(async () => {
      w = await testWorld(kind);
    });
    afterEach(() => w.close());

    const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
      w.request("POST", path, { ...(body !== undefined ? { body } : {}), headers: { "Idempotency-Key": `k-${key++}`, ...headers } });
    const get = (path: string) => w.request("GET", path);
    const recipient = async (name = "Alice") => (await json(await post("/v1/recipients", { name, chain_addresses: { base: BASE } }))).id as string;
    const usdc = async () => (await json(await get("/v1/balances"))).data.find((b: any) => b.asset === "USDC");
    const batch = (legs: unknown[], query = "") =>
      post(`/v1/payouts/batches${query}`, { reference: "march-payroll", funding: { asset: "USDC", source: "auto" }, legs });

    it("accepts a batch, settles every leg, and completes once", async () => {
      const a = await recipient("A");
      const b = await recipient("B");
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "100" });
      const res = await batch([
        { row: 0, amount: "10", recipient: a, reference: "emp-1" },
        { row: 1, amount: "20.5", recipient: b, reference: "emp-2" },
        { row: 2, amount: "0.000001", recipient: a },
      ]);
      expect(res.status).toBe(200);
      const created = await json(res);
      expect(created).toMatchObject({
        object: "payout_batch",
        status: "processing",
        reference: "march-payroll",
        funding: { asset: "USDC", source: "auto" },
        leg_count: 3,
        total_amount: "30.500001",
        counts: { executing: 3 },
        completed_at: null,
      });
      expect(created.id).toMatch(/^bat_/);
      const payouts = (await json(await get("/v1/payouts"))).data;
      expect(payouts.map((p: any) => [p.batch, p.row, p.reference]).sort((x: any, y: any) => x[1] - y[1])).toEqual([
        [created.id, 0, "emp-1"],
        [created.id, 1, "emp-2"],
        [created.id, 2, null],
      ]);
      await post("/v1/test_helpers/clock/advance", { seconds: 10 });
      const done = await json(await get(`/v1/payouts/batches/${created.id}`));
      expect(done).toMatchObject({ status: "completed", counts: { settled: 3 } });
      expect(done.completed_at).not.toBeNull();
      const completed = (await json(await get("/v1/events?type=payout.batch.completed"))).data;
      expect(completed).toHaveLength(1);
      expect(completed[0].data.object).toMatchObject({ id: created.id, status: "completed", counts: { settled: 3 } });
      expect((await usdc()).reserved).toBe("0");
    });

    it("lists every bad row, creates nothing, and dry_run answers the same", async () => {
      const a = await recipient();
      const flagged = (await json(await post("/v1/recipients", { name: "Acme flagged Ltd", chain_addresses: { base: BASE }, screening: true }))).id;
      await post("/v1/test_helpers/clock/advance", { seconds: 2 });
      expect((await json(await get(`/v1/recipients/${flagged}`))).screening_status).toBe("flagged");
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "100" });
      const legs = [
        { row: 0, amount: "1", recipient: a },
        { row: 1, amount: "1.0000001", recipient: a },
        { row: 2, amount: "1", recipient: "rcp_nobody" },
        { row: 7, amount: "1", recipient: a },
        { row: 4, amount: "1", recipient: a, colour: "red" },
        { row: 5, amount: "1", recipient: flagged },
      ];
      const real = await batch(legs);
      expect(real.status).toBe(400);
      const body = await json(real);
      expect(body.error).toMatchObject({ type: "invalid_request_error", code: "batch_invalid", param: "legs" });
      expect(body.error.errors).toEqual([
        { row: 1, param: "legs[1].amount", code: "amount_invalid", message: expect.any(String) },
        { row: 2, param: "legs[2].recipient", code: "resource_missing", message: expect.any(String) },
        { row: 3, param: "legs[3].row", code: "parameter_invalid", message: expect.any(String) },
        { row: 4, param: "legs[4].colour", code: "parameter_invalid", message: expect.any(String) },
        { row: 5, param: "legs[5].recipient", code: "recipient_blocked", message: expect.any(String) },
      ]);
      const dry = await batch(legs, "?dry_run=true");
      expect(dry.status).toBe(400);
      const dryBody = await json(dry);
      expect(dryBody.error.errors).toEqual(body.error.errors);
      expect(dryBody.error.code).toBe("batch_invalid");
      expect((await json(await get("/v1/payouts"))).data).toEqual([]);
      expect(await usdc()).toMatchObject({ available: "100", reserved: "0" });
    });

    it("dry_run validates a good batch without moving value", async () => {
      const a = await recipient();
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "100" });
      const res = await batch(
        [
          { row: 0, amount: "10", recipient: a },
          { row: 1, amount: "5", recipient: a },
        ],
        "?dry_run=true",
      );
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ object: "payout_batch_validation", valid: true, leg_count: 2, total_amount: "15" });
      expect((await json(await get("/v1/payouts"))).data).toEqual([]);
      expect(await usdc()).toMatchObject({ available: "100", reserved: "0" });
    });

    it("refuses a batch the account cannot fund (402) and one over 25,000 legs (batch_too_large)", async () => {
      const a = await recipient();
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "10" });
      const poor = await batch([
        { row: 0, amount: "6", recipient: a },
        { row: 1, amount: "6", recipient: a },
      ]);
      expect(poor.status).toBe(402);
      expect((await json(poor)).error.code).toBe("insufficient_funds");
      const legs = Array.from({ length: 25_001 }, (_, row) => ({ row, amount: "1", recipient: a }));
      const huge = await batch(legs);
      expect(huge.status).toBe(400);
      expect((await json(huge)).error.code).toBe("batch_too_large");
      expect((await json(await get("/v1/payouts"))).data).toEqual([]);
    });

    it("allows 20 batch submissions in any rolling minute per API key, then 429 with Retry-After; dry runs and replays are not counted", async () => {
      const a = await recipient();
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "100" });
      const legs = [{ row: 0, amount: "1", recipient: a }];
      const body = { funding: { asset: "USDC", source: "auto" }, legs };
      // dry runs move nothing: 25 of them leave every slot free
      for (let i = 0; i < 25; i++) expect((await batch(legs, "?dry_run=1")).status).toBe(200);
      const accepted = await w.request("POST", "/v1/payouts/batches", { body, headers: { "Idempotency-Key": "first" } });
      expect(accepted.status).toBe(200);
      for (let i = 0; i < 19; i++) expect((await batch(legs)).status).toBe(200);
      const limited = await batch(legs);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("60");
      expect((await json(limited)).error).toMatchObject({ type: "rate_limit_error", code: "rate_limited" });
      // a dry run is still answered while the real submissions are limited
      expect((await batch(legs, "?dry_run=true")).status).toBe(200);
      // a replay is answered from the stored response: it is not a new submission
      const replay = await w.request("POST", "/v1/payouts/batches", { body, headers: { "Idempotency-Key": "first" } });
      expect(replay.status).toBe(200);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      const otherKey = (await w.engine.accounts.createApiKey(w.accountId))._unsafeUnwrap().key;
      const other = await w.request("POST", "/v1/payouts/batches", { key: otherKey, body, headers: { "Idempotency-Key": "other" } });
      expect(other.status).toBe(200);
      w.clock.advance(59_999);
      expect((await batch(legs)).status).toBe(429);
      w.clock.advance(1);
      expect((await batch(legs)).status).toBe(200);
    });

    it("holds the limit across a minute boundary: of 25 submissions within 60 s, 20 are accepted and 5 refused until a slot frees", async () => {
      const a = await recipient();
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "100" });
      const legs = [{ row: 0, amount: "1", recipient: a }];
      // 12 submissions 5 s before a minute boundary, 13 more 10 s later (in the next minute)
      w.clock.set(Math.ceil((w.clock.now() + 1) / 60_000) * 60_000 - 5_000);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await batch(legs)).status);
      w.clock.advance(10_000);
      const refused: Response[] = [];
      for (let i = 0; i < 13; i++) {
        const res = await batch(legs);
        statuses.push(res.status);
        if (res.status === 429) refused.push(res);
      }
      expect(statuses.filter((st) => st === 200)).toHaveLength(20);
      expect(statuses.slice(20)).toEqual([429, 429, 429, 429, 429]);
      for (const res of refused) {
        expect((await json(res)).error).toMatchObject({ type: "rate_limit_error", code: "rate_limited" });
        // the 12 first leave the window 60 s after they came, 50 s from now
        expect(res.headers.get("retry-after")).toBe("50");
      }
      expect((await json(await get("/v1/payouts/batches?limit=100"))).data).toHaveLength(20);
      w.clock.advance(50_000);
      expect((await batch(legs)).status).toBe(200);
    });

    it("lists batches newest first with the list contract, and /v1/payouts/batches is not read as a payout id", async () => {
      const a = await recipient();
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "100" });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await post("/v1/payouts/batches", {
          reference: `run-${i}`,
          funding: { asset: "USDC", source: "auto" },
          legs: [{ row: 0, amount: "1", recipient: a }],
        });
        ids.push((await json(res)).id);
        w.clock.advance(1_000);
      }
      const first = await get("/v1/payouts/batches?limit=2");
      expect(first.status).toBe(200);
      const page = await json(first);
      expect(page).toMatchObject({ object: "list", has_more: true, previous_cursor: null });
      expect(page.data.map((b: any) => b.id)).toEqual([ids[2], ids[1]]);
      expect(page.data[0]).toMatchObject({ object: "payout_batch", reference: "run-2", leg_count: 1 });
      const second = await json(await get(`/v1/payouts/batches?limit=2&starting_after=${page.next_cursor}`));
      expect(second.data.map((b: any) => b.id)).toEqual([ids[0]]);
      expect(second.has_more).toBe(false);
      // and back: ending_before the second page's previous_cursor is the first page again
      const back = await json(await get(`/v1/payouts/batches?limit=2&ending_before=${second.previous_cursor}`));
      expect(back).toMatchObject({ has_more: false, previous_cursor: null });
      expect(back.data.map((b: any) => b.id)).toEqual([ids[2], ids[1]]);
      expect(back.next_cursor).toEqual(expect.stringMatching(/^cur_/));
      const both = await get(`/v1/payouts/batches?starting_after=${page.next_cursor}&ending_before=${page.next_cursor}`);
      expect(both.status).toBe(400);
      expect((await json(both)).error).toMatchObject({ code: "parameter_invalid", param: "ending_before" });
      expect((await json(await get("/v1/payouts/batches?search=run-1"))).data.map((b: any) => b.id)).toEqual([ids[1]]);
      expect((await json(await get("/v1/payouts/batches?status=processing"))).data).toHaveLength(3);
      const bad = await get(`/v1/payouts/batches?status=processing&starting_after=${page.next_cursor}`);
      expect(bad.status).toBe(400);
      expect((await json(bad)).error.code).toBe("cursor_invalid");
    });
  });
}

afterAll(closeSharedStorage);

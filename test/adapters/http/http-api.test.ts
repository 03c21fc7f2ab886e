import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ok } from "neverthrow";
import { runCommand } from "../../../src/engine/command";
import { systemContext } from "../../../src/engine/context";
import { engineDeps } from "../../../src/engine/engine";
import { requestFingerprint } from "../../../src/engine/idempotency";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const REQ = /^req_[0-9a-z]{26}$/;

async function json(res: Response): Promise<any> {
  return res.json();
}

function expectError(res: Response, body: any, status: number, code: string, param?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("request-id")).toMatch(REQ);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.request_id).toBe(res.headers.get("request-id"));
  if (param !== undefined) expect(body.error.param).toBe(param);
}

for (const kind of storageKinds()) {
  describe(`/v1 over ${kind.name}`, () => {
    let w: TestWorld;
    beforeEach(async () => {
      w = await testWorld(kind);
    });
    afterEach(() => w.close());

    const fund = (body: unknown, headers: Record<string, string> = {}, key?: string | null) =>
      w.request("POST", "/v1/test_helpers/balances/fund", { body, headers, ...(key !== undefined ? { key } : {}) });

    describe("authentication and errors", () => {
      it.each([
        ["no header", null, "api_key_missing"],
        ["an unknown key", "sk_test_0000000000000000000000000000", "api_key_invalid"],
        ["a malformed key", "pk_nope", "api_key_invalid"],
      ])("answers %s with 401", async (_, key, code) => {
        const res = await w.request("GET", "/v1/balances", { key });
        expectError(res, await json(res), 401, code);
        expect((await json(await w.request("GET", "/v1/balances", { key }))).error.type).toBe("authentication_error");
      });

      it("refuses a non-Bearer Authorization header", async () => {
        const res = await w.request("GET", "/v1/balances", { key: null, headers: { authorization: `Basic ${w.apiKey}` } });
        expectError(res, await json(res), 401, "api_key_invalid");
      });

      it("answers 403 when the key lacks the scope, and lets write imply read", async () => {
        const readOnly = (await w.engine.accounts.createApiKey(w.accountId, { scopes: ["balances:read"] }))._unsafeUnwrap();
        expect((await w.request("GET", "/v1/balances", { key: readOnly.key })).status).toBe(200);
        const res = await w.request("GET", "/v1/events", { key: readOnly.key });
        const body = await json(res);
        expectError(res, body, 403, "permission_denied");
        expect(body.error.type).toBe("permission_error");
        const writer = (await w.engine.accounts.createApiKey(w.accountId, { scopes: ["events:write"] }))._unsafeUnwrap();
        expect((await w.request("GET", "/v1/events", { key: writer.key })).status).toBe(200);
      });

      it("answers an unknown route with 404 resource_missing and a Request-Id", async () => {
        const res = await w.request("GET", "/v1/nothing_here");
        expectError(res, await json(res), 404, "resource_missing");
      });

      it("keeps accounts apart: another account's event is 404", async () => {
        await fund({ asset: "USDC", chain: "base", amount: "10" });
        const [event] = (await json(await w.request("GET", "/v1/events"))).data;
        const other = await w.engine.accounts.create({ name: "Other" });
        const otherKey = (await w.engine.accounts.createApiKey(other.id))._unsafeUnwrap().key;
        expect((await w.request("GET", `/v1/events/${event.id}`)).status).toBe(200);
        const res = await w.request("GET", `/v1/events/${event.id}`, { key: otherKey });
        expectError(res, await json(res), 404, "resource_missing");
        expect((await json(await w.request("GET", "/v1/events", { key: otherKey }))).data).toEqual([]);
        const balances = (await json(await w.request("GET", "/v1/balances", { key: otherKey }))).data;
        expect(balances.find((b: any) => b.asset === "USDC").available).toBe("0");
      });

      it("refuses bodies over 32 MB with 413 payload_too_large", async () => {
        const big = JSON.stringify({ asset: "USDC", chain: "base", amount: "1", pad: "x".repeat(32 * 1024 * 1024) });
        const res = await w.request("POST", "/v1/test_helpers/balances/fund", { body: big });
        expectError(res, await json(res), 413, "payload_too_large");
      });

      it("refuses a body that is not JSON", async () => {
        const res = await w.request("POST", "/v1/test_helpers/balances/fund", { body: "{nope" });
        expectError(res, await json(res), 400, "parameter_invalid", "body");
      });
    });

    describe("amounts and parameters", () => {
      it.each([
        [{ asset: "USDC", chain: "base", amount: "1.0000001" }, "amount_invalid", "amount"],
        [{ asset: "USDC", chain: "base", amount: "-5" }, "amount_invalid", "amount"],
        [{ asset: "USDC", chain: "base", amount: "1e3" }, "amount_invalid", "amount"],
        [{ asset: "USDC", chain: "base", amount: 5 }, "amount_invalid", "amount"],
        [{ asset: "USDC", chain: "base", amount: "0" }, "amount_invalid", "amount"],
        [{ asset: "USDC", chain: "base", amount: " 5" }, "amount_invalid", "amount"],
        [{ asset: "DOGE", chain: "base", amount: "5" }, "asset_unsupported", "asset"],
        [{ asset: "USDC", chain: "tron", amount: "5" }, "chain_unsupported", "chain"],
        [{ asset: "BTC", chain: "base", amount: "5" }, "chain_unsupported", "chain"],
        [{ chain: "base", amount: "5" }, "parameter_missing", "asset"],
        [{ asset: "USDC", chain: "base", amount: "5", colour: "red" }, "parameter_invalid", "colour"],
      ])("refuses %j with %s and changes nothing", async (body, code, param) => {
        const res = await fund(body);
        expectError(res, await json(res), 400, code, param);
        expect(await w.harness.inspect.entries(w.accountId)).toEqual([]);
        expect(await w.harness.inspect.events(w.accountId)).toEqual([]);
      });
    });

    describe("balances and events", () => {
      it("funds, shows the balance per chain, and records balance.updated with as_of", async () => {
        const res = await fund({ asset: "USDC", chain: "base", amount: "10.25" });
        expect(res.status).toBe(200);
        expect(await json(res)).toMatchObject({ object: "balance", asset: "USDC", available: "10.25", reserved: "0", pending: "0" });
        await fund({ asset: "USDC", chain: "solana", amount: "0.000001" });
        const list = await json(await w.request("GET", "/v1/balances"));
        expect(list).toMatchObject({ object: "list", has_more: false, next_cursor: null });
        const usdc = list.data.find((b: any) => b.asset === "USDC");
        expect(usdc.available).toBe("10.250001");
        expect(usdc.chains.base).toEqual({ available: "10.25", reserved: "0", pending: "0" });
        expect(usdc.chains.solana.available).toBe("0.000001");
        expect(usdc.chains.ethereum.available).toBe("0");
        expect(Date.parse(usdc.as_of)).toBe(w.clock.now());

        const events = await json(await w.request("GET", "/v1/events?type=balance.updated"));
        expect(events.data).toHaveLength(2);
        const [latest] = events.data;
        expect(latest).toMatchObject({ object: "event", type: "balance.updated", livemode: false });
        expect(latest.id).toMatch(/^evt_/);
        expect(latest.data.object).toMatchObject({ object: "balance", asset: "USDC", available: "10.250001" });
        expect(latest.data.object.as_of).toBe(latest.created);
        expect(latest.request.id).toMatch(REQ);
        expect(await json(await w.request("GET", `/v1/events/${latest.id}`))).toEqual(latest);
      });

      it("pages through events with signed cursors bound to the filters", async () => {
        for (let i = 0; i < 7; i++) {
          await fund({ asset: "USDC", chain: "base", amount: "1" });
          w.clock.advance(1_000);
        }
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const page: any = await json(await w.request("GET", `/v1/events?limit=3${cursor ? `&starting_after=${cursor}` : ""}`));
          seen.push(...page.data.map((e: any) => e.id));
          expect(page.has_more).toBe(page.next_cursor !== null);
          cursor = page.next_cursor;
        } while (cursor);
        expect(seen).toHaveLength(7);
        expect([...seen].sort().reverse()).toEqual(seen);

        const first = await json(await w.request("GET", "/v1/events?limit=2"));
        const tampered = `${first.next_cursor.slice(0, -2)}xx`;
        let res = await w.request("GET", `/v1/events?starting_after=${tampered}`);
        expectError(res, await json(res), 400, "cursor_invalid", "starting_after");
        res = await w.request("GET", `/v1/events?type=balance.updated&starting_after=${first.next_cursor}`);
        expectError(res, await json(res), 400, "cursor_invalid");

        const start = Date.parse((await json(await w.request("GET", "/v1/events"))).data[2].created);
        const ranged = await json(await w.request("GET", `/v1/events?created_gte=${new Date(start).toISOString()}`));
        expect(ranged.data).toHaveLength(3);
        const day = new Date(start).toISOString().slice(0, 10);
        expect((await json(await w.request("GET", `/v1/events?created_lt=${day}`))).data).toEqual([]);
      });

      it.each([
        ["limit=0", "parameter_invalid", "limit"],
        ["limit=201", "parameter_invalid", "limit"],
        ["limit=ten", "parameter_invalid", "limit"],
        ["type=payout.nope", "parameter_invalid", "type"],
        ["created_gte=yesterday", "parameter_invalid", "created_gte"],
        ["colour=red", "parameter_invalid", "colour"],
        ["starting_after=abc", "cursor_invalid", "starting_after"],
      ])("refuses the list parameter %s", async (query, code, param) => {
        const res = await w.request("GET", `/v1/events?${query}`);
        expectError(res, await json(res), 400, code, param);
      });

      it("pages balances by asset with limit and cursor, and refuses unknown query parameters anywhere", async () => {
        const first = await json(await w.request("GET", "/v1/balances?limit=2"));
        expect(first.data.map((b: any) => b.asset)).toEqual(["BTC", "ETH"]);
        expect(first.has_more).toBe(true);
        const rest = await json(await w.request("GET", `/v1/balances?limit=200&starting_after=${first.next_cursor}`));
        expect(rest.data.map((b: any) => b.asset)).toEqual(["EURC", "SOL", "USDC", "USDT"]);
        expect(rest).toMatchObject({ has_more: false, next_cursor: null });
        expect(first.previous_cursor).toBeNull();
        // and back: two codes before SOL, then the first page
        const third = await json(await w.request("GET", `/v1/balances?limit=2&starting_after=${first.next_cursor}`));
        expect(third.data.map((b: any) => b.asset)).toEqual(["EURC", "SOL"]);
        const back = await json(await w.request("GET", `/v1/balances?limit=1&ending_before=${third.previous_cursor}`));
        expect(back).toMatchObject({ has_more: true, data: [expect.objectContaining({ asset: "ETH" })] });
        const start = await json(await w.request("GET", `/v1/balances?limit=5&ending_before=${back.previous_cursor}`));
        expect(start).toMatchObject({ has_more: false, previous_cursor: null, data: [expect.objectContaining({ asset: "BTC" })] });
        for (const path of ["/v1/balances?limit=0", "/v1/balances?foo=1", "/v1/events/evt_x?foo=1"]) {
          const res = await w.request("GET", path);
          expect(res.status).toBe(400);
          expect((await json(res)).error.code).toBe("parameter_invalid");
        }
        const tampered = await w.request("GET", "/v1/balances?starting_after=cur_nope");
        expect((await json(tampered)).error.code).toBe("cursor_invalid");
      });

      it("accepts limit 200 and defaults to 20", async () => {
        for (let i = 0; i < 21; i++) await fund({ asset: "ETH", chain: "base", amount: "0.1" });
        expect((await json(await w.request("GET", "/v1/events"))).data).toHaveLength(20);
        expect((await json(await w.request("GET", "/v1/events?limit=200"))).data).toHaveLength(21);
      });
    });

    describe("idempotency", () => {
      it("replays the stored response with Idempotent-Replayed and has one effect", async () => {
        const first = await fund({ asset: "USDC", chain: "base", amount: "7" }, { "Idempotency-Key": "fund-1" });
        const firstBody = await first.text();
        expect(first.headers.get("idempotent-replayed")).toBeNull();
        w.clock.advance(5_000);
        const again = await fund({ amount: "7", chain: "base", asset: "USDC" }, { "Idempotency-Key": "fund-1" });
        expect(again.status).toBe(200);
        expect(again.headers.get("idempotent-replayed")).toBe("true");
        expect(await again.text()).toBe(firstBody);
        const usdc = (await json(await w.request("GET", "/v1/balances"))).data.find((b: any) => b.asset === "USDC");
        expect(usdc.available).toBe("7");
        const events = (await json(await w.request("GET", "/v1/events"))).data;
        expect(events).toHaveLength(1);
        expect(events[0].request.idempotency_key).toBe("fund-1");
      });

      it("refuses the same key with another body (400) and keys are per account", async () => {
        await fund({ asset: "USDC", chain: "base", amount: "7" }, { "Idempotency-Key": "k" });
        const res = await fund({ asset: "USDC", chain: "base", amount: "8" }, { "Idempotency-Key": "k" });
        const body = await json(res);
        expectError(res, body, 400, "idempotency_key_reused");
        expect(body.error.type).toBe("idempotency_error");
        const other = await w.engine.accounts.create({ name: "Other" });
        const otherKey = (await w.engine.accounts.createApiKey(other.id))._unsafeUnwrap().key;
        expect((await fund({ asset: "USDC", chain: "base", amount: "8" }, { "Idempotency-Key": "k" }, otherKey)).status).toBe(200);
      });

      it("answers 409 while a request holds the key, and lets a crashed holder's key be taken over", async () => {
        const body = JSON.stringify({ asset: "USDC", chain: "base", amount: "3" });
        const held = (
          await w.engine.idempotency.begin(w.accountId, "busy", await requestFingerprint("POST", "/v1/test_helpers/balances/fund", body))
        )._unsafeUnwrap();
        if (held.kind !== "proceed") throw new Error("the key should have been free");
        const res = await w.request("POST", "/v1/test_helpers/balances/fund", { body, headers: { "Idempotency-Key": "busy" } });
        expectError(res, await json(res), 409, "idempotency_key_in_use");
        w.clock.advance(60_000); // the holder never finished: its lock is stale
        const retry = await w.request("POST", "/v1/test_helpers/balances/fund", { body, headers: { "Idempotency-Key": "busy" } });
        expect(retry.status).toBe(200);
        // the stale holder can no longer save a response over the new one: its effect rolls back
        const saved = await w.harness.inspect.idempotencyKeys(w.accountId);
        const late = await runCommand(engineDeps(w.engine), { ...systemContext(w.accountId, false), idempotency: held.claim }, async (uow) => {
          uow.emit("balance.updated", { late: true });
          return ok({ late: true });
        });
        expect(late.isErr() && late.error.code).toBe("idempotency_key_in_use");
        expect(await w.harness.inspect.idempotencyKeys(w.accountId)).toEqual(saved);
        const events = (await w.engine.events.list(systemContext(w.accountId, false), { type: "balance.updated", limit: 100 }))._unsafeUnwrap().data;
        expect(events.some((e) => (e.data.object as Record<string, unknown>).late)).toBe(false);
      });

      it("does not store a response refused by validation", async () => {
        const bad = await fund({ asset: "USDC", chain: "base", amount: "1.0000001" }, { "Idempotency-Key": "v" });
        expect(bad.status).toBe(400);
        expect(await w.harness.inspect.idempotencyKeys(w.accountId)).toEqual([]);
        const good = await fund({ asset: "USDC", chain: "base", amount: "1" }, { "Idempotency-Key": "v" });
        expect(good.status).toBe(200);
        expect(good.headers.get("idempotent-replayed")).toBeNull();
      });

      it("refuses an Idempotency-Key longer than 255 characters", async () => {
        const res = await fund({ asset: "USDC", chain: "base", amount: "1" }, { "Idempotency-Key": "k".repeat(256) });
        expectError(res, await json(res), 400, "parameter_invalid", "Idempotency-Key");
      });

      it("forgets a key after 24 hours", async () => {
        await fund({ asset: "USDC", chain: "base", amount: "1" }, { "Idempotency-Key": "day" });
        w.clock.advance(24 * 3_600_000);
        const res = await fund({ asset: "USDC", chain: "base", amount: "2" }, { "Idempotency-Key": "day" });
        expect(res.status).toBe(200);
        expect(res.headers.get("idempotent-replayed")).toBeNull();
      });
    });

    describe("test helpers", () => {
      it("answer 404 to live keys", async () => {
        const live = await w.engine.accounts.create({ name: "Live", livemode: true });
        const key = (await w.engine.accounts.createApiKey(live.id))._unsafeUnwrap().key;
        expect(key.startsWith("sk_live_")).toBe(true);
        const res = await fund({ asset: "USDC", chain: "base", amount: "1" }, {}, key);
        expectError(res, await json(res), 404, "resource_missing");
        expect((await w.request("GET", "/v1/balances", { key })).status).toBe(200);
      });

      it("advance the manual clock and run the work that falls due on the way", async () => {
        const before = w.clock.now();
        const res = await w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds: 7200 } });
        expect(res.status).toBe(200);
        const body = await json(res);
        expect(body.object).toBe("test_clock");
        expect(Date.parse(body.now)).toBe(before + 7_200_000);
        expect(body.work_run).toBeGreaterThanOrEqual(2); // hourly housekeeping, at each hour on the way
        const bad = await w.request("POST", "/v1/test_helpers/clock/advance", { body: { seconds: -1 } });
        expectError(bad, await json(bad), 400, "parameter_invalid", "seconds");
      });
    });

    it("serves an OpenAPI 3.1 document derived from the request schemas", async () => {
      const res = await w.request("GET", "/v1/openapi.json", { key: null });
      expect(res.status).toBe(200);
      expect(res.headers.get("request-id")).toMatch(REQ);
      const doc = await json(res);
      expect(doc.openapi).toBe("3.1.0");
      const fundOp = doc.paths["/v1/test_helpers/balances/fund"].post;
      expect(fundOp.requestBody.content["application/json"].schema).toMatchObject({
        type: "object",
        required: ["asset", "chain", "amount"],
        additionalProperties: false,
      });
      const listOp = doc.paths["/v1/events"].get;
      expect(listOp.parameters.find((p: any) => p.name === "limit").schema).toMatchObject({ type: "integer", minimum: 1, maximum: 200 });
      expect(doc.paths["/v1/events/{id}"].get.parameters[0]).toMatchObject({ name: "id", in: "path" });
      expect(doc.components.schemas.Error.properties.error.properties.code.enum).toContain("amount_invalid");
    });
  });
}

afterAll(closeSharedStorage);

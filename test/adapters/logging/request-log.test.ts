import fc from "fast-check";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger, logObserver } from "../../../adapters/logging/logger";
import { isCorrelationId } from "../../../adapters/http/middleware";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/** Issue 24.6: request log lines carry the account, key id, idempotency key, request id and the client's correlation id. */
describe("request log lines", () => {
  let w: TestWorld;
  let lines: string[];
  beforeEach(async () => {
    lines = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) } });
    w = await testWorld(storageKinds()[0]!, { observer: logObserver(logger) });
  });
  afterEach(() => w.close());
  afterAll(() => closeSharedStorage());

  const requests = () => lines.map((l) => JSON.parse(l)).filter((r) => r.msg === "request" || r.msg === "request failed");

  it("carry the account, the key's id (never its secret), the Idempotency-Key and a well-formed X-Request-Id", async () => {
    const res = await w.request("POST", "/v1/test_helpers/balances/fund", {
      body: { asset: "USDC", chain: "base", amount: "5" },
      headers: { "Idempotency-Key": "fund-1", "X-Request-Id": "0b5e3c1a-7f3e-4c2b-9d1e-2a6f8e9c1d0b" },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get("request-id")!;
    expect(requestId).toMatch(/^req_[0-9a-z]+$/); // docs/decisions.md §2: the request id stays the engine's
    expect(res.headers.get("x-request-id")).toBe("0b5e3c1a-7f3e-4c2b-9d1e-2a6f8e9c1d0b");
    const [line] = requests();
    expect(line).toMatchObject({
      level: "info",
      request_id: requestId,
      correlation_id: "0b5e3c1a-7f3e-4c2b-9d1e-2a6f8e9c1d0b",
      account: w.accountId,
      idempotency_key: "fund-1",
      method: "POST",
      route: "/v1/test_helpers/balances/fund",
      status: 200,
    });
    expect(line.key_id).toMatch(/^key_[0-9a-z]+$/);
    expect(lines.join("")).not.toContain(w.apiKey);
    // the events of the request carry the same request id
    const events = await (await w.request("GET", "/v1/events?type=balance.updated")).json();
    expect(events.data[0].request).toMatchObject({ id: requestId, idempotency_key: "fund-1" });
  });

  it("ignore a malformed X-Request-Id (the request id correlates), and name no account before a key is accepted", async () => {
    const res = await w.request("GET", "/v1/balances", { key: null, headers: { "X-Request-Id": "two words" } });
    expect(res.status).toBe(401);
    const requestId = res.headers.get("request-id")!;
    expect(res.headers.get("x-request-id")).toBe(requestId);
    const [line] = requests();
    expect(line).toMatchObject({ request_id: requestId, correlation_id: requestId, status: 401, route: "/v1/balances" });
    for (const field of ["account", "key_id", "idempotency_key"]) expect(line).not.toHaveProperty(field);
  });
});

describe("work and chain log lines", () => {
  it("name the job and the request that started its chain of work, and warn of reorganisations and dropped transactions", () => {
    const lines: string[] = [];
    const observer = logObserver(createLogger({ destination: { write: (line: string) => void lines.push(line) } }));
    observer.workCompleted({ kind: "payouts.track", outcome: "dead", durationMs: 3, attempt: 8, id: "wrk_1", requestId: "req_abc" });
    observer.workCompleted({ kind: "payouts.track", outcome: "dead", durationMs: 3, attempt: 8, id: "wrk_2", requestId: null });
    observer.workCompleted({ kind: "payouts.track", outcome: "retry", durationMs: 3, attempt: 1, id: "wrk_3", requestId: "req_abc" });
    observer.domainObserved!({ type: "chain_reorg", chain: "base", depth: 2, livemode: true });
    observer.domainObserved!({ type: "transaction_rescued", chain: "base", action: "dropped", livemode: true });
    observer.domainObserved!({ type: "payout_finished", asset: "USDC", livemode: true, outcome: "settled", durationMs: 1 });
    const records = lines.map((l) => JSON.parse(l));
    expect(records.map((r) => [r.level, r.msg])).toEqual([
      ["error", "due work failed for the last time"],
      ["error", "due work failed for the last time"],
      ["warn", "chain reorganisation"],
      ["warn", "transaction dropped"],
    ]);
    expect(records[0]).toMatchObject({ job: "wrk_1", kind: "payouts.track", attempt: 8, request_id: "req_abc" });
    expect(records[1]).not.toHaveProperty("request_id");
    expect(records[2]).toMatchObject({ chain: "base", mode: "live", depth: 2 });
  });
});

describe("a correlation id", () => {
  it("is 1 to 200 characters of A-Z a-z 0-9 . _ : -, nothing else", () => {
    const allowed = fc.constantFrom(..."ABCXYZabcxyz0189._:-".split(""));
    fc.assert(fc.property(fc.array(allowed, { minLength: 1, maxLength: 200 }), (chars) => isCorrelationId(chars.join(""))));
    fc.assert(fc.property(fc.array(allowed, { minLength: 201, maxLength: 300 }), (chars) => !isCorrelationId(chars.join(""))));
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 50 }), (s) => isCorrelationId(s) === /^[A-Za-z0-9._:-]+$/.test(s)),
      { numRuns: 500 },
    );
    for (const bad of ["", " ", "a b", "a\nb", "é", "a/b", "{x}", undefined]) expect(isCorrelationId(bad)).toBe(false);
  });
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostProcess, stopChild } from "../support/evm/processes";
import { MAGIC } from "../support/magic-values";

/**
 * docs/decisions.md §10 on `npm start`'s host (`payrail serve` as its own process, real-time clock,
 * embedded storage): each failure state of the seed reached with the test key through /v1 alone,
 * with the magic values docs/testing-your-integration.md lists.
 */
const API_KEY = "sk_test_outcomesOUTCOMESoutcomes";

describe("test-mode outcomes on the host", () => {
  let dir: string;
  let host: Awaited<ReturnType<typeof hostProcess>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "payrail-outcomes-"));
    host = await hostProcess({ PAYRAIL_API_KEY: API_KEY, PAYRAIL_DATA_DIR: dir, LOG_LEVEL: "warn" });
  }, 60_000);
  afterAll(async () => {
    if (host) await stopChild(host.child, "SIGTERM");
    await rm(dir, { recursive: true, force: true });
  });

  let n = 0;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${host.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json", "Idempotency-Key": `outcome-${n++}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const until = async (what: string, path: string, done: (o: any) => boolean) => {
    const end = Date.now() + 30_000;
    for (;;) {
      const { body } = await call("GET", path);
      if (done(body)) return body;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(body)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  it("reaches payout created, failed and partially_settled, recipient flagged and swap failed over HTTP", async () => {
    // payout `created`: an approval threshold set through the API
    const policy = await call("POST", "/v1/account/policy", { approval_threshold: { USDC: "100" } });
    expect(policy.body.policy.approval_threshold).toEqual({ USDC: "100" });
    expect((await call("GET", "/v1/account")).body.policy.approval_threshold).toEqual({ USDC: "100" });
    const good = await call("POST", "/v1/recipients", { name: "Acme", chain_addresses: { base: MAGIC.goodEvm } });
    const held = await call("POST", "/v1/payouts", { amount: "150", asset: "USDC", recipient: good.body.id });
    expect(held.body.status).toBe("created");
    await call("POST", "/v1/account/policy", { approval_threshold: {} });

    // recipient `flagged`
    const flagged = await call("POST", "/v1/recipients", { name: "flagged trading", chain_addresses: { base: MAGIC.goodEvm }, screening: true });
    await until("the screening verdict", `/v1/recipients/${flagged.body.id}`, (r) => r.screening_status === "flagged");
    const blocked = await call("POST", "/v1/payouts", { amount: "1", asset: "USDC", recipient: flagged.body.id });
    expect(blocked.status).toBe(402);
    expect(blocked.body.error.code).toBe("recipient_blocked");

    // payout `failed`: its only leg goes to an address ending in dead
    const dead = await call("POST", "/v1/recipients", { name: "Dead", chain_addresses: { base: MAGIC.deadEvm } });
    const failing = await call("POST", "/v1/payouts", { amount: "10", asset: "USDC", recipient: dead.body.id });

    // payout `partially_settled`: more than one chain holds, one leg to a dead address
    const mixed = await call("POST", "/v1/recipients", { name: "Mixed", chain_addresses: { ethereum: MAGIC.deadEvm, solana: MAGIC.goodSolana } });
    const split = await call("POST", "/v1/payouts", {
      amount: "1500000",
      asset: "USDC",
      recipient: mixed.body.id,
      routing: { prefer_chains: ["ethereum", "solana"] },
    });
    expect(split.body.legs.map((l: any) => l.chain).sort()).toEqual(["ethereum", "solana"]);

    // swap `failed`: every venue halted for a minute
    const quote = await call("POST", "/v1/quotes", { from: { asset: "USDC", amount: "100" }, to: { asset: "ETH" }, ttl: 60 });
    await call("POST", "/v1/test_helpers/venues/halt", { venue: "all", seconds: 60 });
    const swap = await call("POST", "/v1/swaps", { quote: quote.body.id, destination_chain: "base" });

    await until("the failed payout", `/v1/payouts/${failing.body.id}`, (p) => p.status === "failed");
    await until("the partially settled payout", `/v1/payouts/${split.body.id}`, (p) => p.status === "partially_settled");
    await until("the failed swap", `/v1/swaps/${swap.body.id}`, (s) => s.status === "failed");
    const types = new Set((await call("GET", "/v1/events?limit=200")).body.data.map((e: any) => e.type));
    for (const type of ["payout.created", "payout.failed", "payout.partially_settled", "recipient.screening_updated", "swap.failed"]) {
      expect(types, type).toContain(type);
    }
    const usdc = (await call("GET", "/v1/balances")).body.data.find((b: any) => b.asset === "USDC");
    // only the payout waiting for approval holds funds
    expect(Number(usdc.reserved)).toBeCloseTo(150 + Number(held.body.fee), 9);
  }, 60_000);
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startHost } from "../../adapters/cli/host";

/** docs/decisions.md §8: the runnable host keeps everything across a restart (PGlite in a folder). */
describe("the host server", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("serves over TCP with a funded demo account, and a funded balance survives a restart", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "payrail-host-"));
    dirs.push(dataDir);
    const first = await startHost({ port: 0, dataDir });
    const auth = { authorization: `Bearer ${first.apiKey}`, "content-type": "application/json" };
    let usdc: any;
    try {
      const balances = await (await fetch(`${first.url}/v1/balances`, { headers: auth })).json();
      usdc = balances.data.find((b: any) => b.asset === "USDC");
      expect(usdc.available).toBe("5000000"); // 1,000,000 on each of its five chains
      const funded = await fetch(`${first.url}/v1/test_helpers/balances/fund`, {
        method: "POST",
        headers: { ...auth, "Idempotency-Key": "restart-1" },
        body: JSON.stringify({ asset: "USDC", chain: "base", amount: "0.5" }),
      });
      expect(funded.status).toBe(200);
      expect(funded.headers.get("request-id")).toMatch(/^req_/);
    } finally {
      await first.stop();
    }

    const second = await startHost({ port: 0, dataDir });
    try {
      expect(second.apiKey).toBe(first.apiKey);
      expect(second.accountId).toBe(first.accountId);
      const headers = { authorization: `Bearer ${second.apiKey}` };
      const balances = await (await fetch(`${second.url}/v1/balances`, { headers })).json();
      expect(balances.data.find((b: any) => b.asset === "USDC").available).toBe("5000000.5");
      const events = await (await fetch(`${second.url}/v1/events?type=balance.updated&limit=1`, { headers })).json();
      expect(events.data[0].data.object.available).toBe("5000000.5");
      expect(events.data[0].request.idempotency_key).toBe("restart-1");
      // the replay survives the restart too
      const replay = await fetch(`${second.url}/v1/test_helpers/balances/fund`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "Idempotency-Key": "restart-1" },
        body: JSON.stringify({ asset: "USDC", chain: "base", amount: "0.5" }),
      });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
    } finally {
      await second.stop();
    }
  });

  it("takes a fixed API key", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "payrail-host-"));
    dirs.push(dataDir);
    const host = await startHost({ port: 0, dataDir, apiKey: "sk_test_fixedfixedfixedfixed" });
    try {
      expect(host.apiKey).toBe("sk_test_fixedfixedfixedfixed");
      const res = await fetch(`${host.url}/v1/balances`, { headers: { authorization: "Bearer sk_test_fixedfixedfixedfixed" } });
      expect(res.status).toBe(200);
    } finally {
      await host.stop();
    }
  });
});

describe("the host server on the real-time clock", () => {
  it("settles a payout through HTTP within seconds, split across chains when one cannot carry it", async () => {
    const { createMemoryStorage } = await import("../../adapters/memory");
    const host = await startHost({ port: 0, storage: createMemoryStorage() });
    const headers = { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown, key: string) =>
      (await fetch(`${host.url}${path}`, { method: "POST", headers: { ...headers, "Idempotency-Key": key }, body: JSON.stringify(body) })).json();
    try {
      const recipient = await post(
        "/v1/recipients",
        { name: "Realtime", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", polygon: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } },
        "rt-rcp",
      );
      // the demo account holds 1,000,000 USDC per chain: 1,500,000 needs both base and polygon
      const payout: any = await post("/v1/payouts", { amount: "1500000", asset: "USDC", recipient: recipient.id }, "rt-po");
      expect(payout.status).toBe("executing");
      expect(payout.legs.length).toBeGreaterThan(1);
      const started = Date.now();
      let status = payout.status;
      while (status === "executing" && Date.now() - started < 20_000) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await (await fetch(`${host.url}/v1/payouts/${payout.id}`, { headers })).json()).status;
      }
      expect(status).toBe("settled");
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await host.stop();
    }
  });
});

describe("payment intents on the host's real-time clock", () => {
  it("sees a deposit at once and credits it at finality within seconds", async () => {
    const { createMemoryStorage } = await import("../../adapters/memory");
    const host = await startHost({ port: 0, storage: createMemoryStorage() });
    const headers = { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown) => (await fetch(`${host.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) })).json();
    try {
      const pi: any = await post("/v1/payment_intents", { amount: "42", asset: "USDC", chains: ["base"], reference: "rt-1" });
      const seen: any = await post(`/v1/test_helpers/payment_intents/${pi.id}/pay`, { chain: "base", amount: "42" });
      expect(seen.status).toBe("processing");
      const started = Date.now();
      let status = seen.status;
      while (status !== "succeeded" && Date.now() - started < 20_000) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await (await fetch(`${host.url}/v1/payment_intents/${pi.id}`, { headers })).json()).status;
      }
      expect(status).toBe("succeeded");
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await host.stop();
    }
  });
});

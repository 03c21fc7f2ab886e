import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startHost } from "../adapters/cli/host";

/** DECISIONS.md §8: the runnable host keeps everything across a restart (PGlite in a folder). */
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

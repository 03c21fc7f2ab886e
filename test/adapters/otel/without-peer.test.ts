import { describe, expect, it, vi } from "vitest";
import { testWorld } from "../../support/engine";
import { storageKinds } from "../../support/storage";

// as if the optional peer were not installed: any module of the engine, its storage, the HTTP
// binding or the dev ports loading it fails this file at once
vi.mock("@opentelemetry/api", () => {
  throw new Error("@opentelemetry/api is not installed");
});

describe("a host without @opentelemetry/api", () => {
  it("creates an engine, serves the API and runs a payout and its due work", async () => {
    await expect(import("@opentelemetry/api")).rejects.toThrow(); // the mock stands
    const w = await testWorld(storageKinds()[0]!);
    try {
      const post = (path: string, body: unknown) =>
        w.request("POST", path, { body, headers: { "Idempotency-Key": path } }).then((r) => r.json() as Promise<any>);
      await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "5" });
      const recipient = await post("/v1/recipients", { name: "R", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
      const payout = await post("/v1/payouts", { amount: "1", asset: "USDC", recipient: recipient.id });
      expect(payout.object).toBe("payout");
      expect(await w.engine.worker.runDue()).toBeGreaterThan(0);
    } finally {
      await w.close();
    }
  });
});

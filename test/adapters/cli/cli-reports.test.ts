import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { createMemoryBlobStore } from "../../../adapters/blobs";
import { parseCsv } from "../../support/csv";
import { runCli } from "../../support/cli";

/** Issue 13: `payrail reports create --wait --out FILE`, `get`, `list`, against a running host. */
describe("payrail reports", () => {
  let host: RunningHost;
  let env: Record<string, string>;
  let dir: string;
  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), blobs: createMemoryBlobStore(), metrics: false });
    env = { PAYRAIL_URL: host.url, PAYRAIL_API_KEY: host.apiKey };
    dir = await mkdtemp(join(tmpdir(), "payrail-cli-reports-"));
    const call = async (path: string, body: unknown, key?: string) =>
      (
        await fetch(`${host.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
          body: JSON.stringify(body),
        })
      ).json() as Promise<any>;
    const rcp = await call("/v1/recipients", { name: "Alice", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
    for (const [i, amount] of ["1", "2.5"].entries()) await call("/v1/payouts", { amount, asset: "USDC", recipient: rcp.id }, `cli-report-${i}`);
  });
  afterAll(async () => {
    await host.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("creates a report, waits for it and downloads the file to --out", async () => {
    const out = join(dir, "ledger.csv");
    const run = runCli(["reports", "create", "--type", "ledger_entries", "--out", out, "--json"], env);
    expect(await run.done, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ object: "report", status: "ready", type: "ledger_entries" });
    const rows = parseCsv(await readFile(out, "utf8"));
    expect(rows.length - 1).toBe(report.row_count);
    expect(report.row_count).toBeGreaterThan(0);
    expect((await readdir(dir)).filter((f) => f.endsWith(".partial"))).toEqual([]);

    const got = runCli(["reports", "get", report.id], env);
    expect(await got.done, got.stderr).toBe(0);
    expect(got.stdout).toContain(report.id);
    expect(got.stdout).toContain(`${report.row_count} rows`);
    const listed = runCli(["reports", "list", "--json"], env);
    expect(await listed.done, listed.stderr).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toContain(report.id);
  });

  it("without --wait answers at once with the pending report", async () => {
    const run = runCli(["reports", "create", "--type", "payout_ledger", "--json"], env);
    expect(await run.done, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.id).toMatch(/^rpt_/);
    const waited = runCli(["reports", "get", report.id, "--wait", "--json"], env);
    expect(await waited.done, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ id: report.id, status: "ready" });
  });

  it("refuses a bad type locally (exit 2) and a bad window with the API's error (exit 1), creating nothing", async () => {
    const before = (await (await fetch(`${host.url}/v1/reports?limit=200`, { headers: { authorization: `Bearer ${host.apiKey}` } })).json()).data.length;
    const badType = runCli(["reports", "create", "--type", "payouts"], env);
    expect(await badType.done).toBe(2);
    expect(badType.stderr).toMatch(/--type must be one of ledger_entries, payout_ledger, got payouts/);
    const badWindow = runCli(["reports", "create", "--type", "ledger_entries", "--from", "2026-02-01", "--to", "2026-01-01", "--wait"], env);
    expect(await badWindow.done).toBe(1);
    expect(badWindow.stderr).toMatch(/parameter_invalid/);
    const missing = runCli(["reports", "get", "rpt_doesnotexist", "--out", join(dir, "x.csv")], env);
    expect(await missing.done).toBe(1);
    expect(missing.stderr).toMatch(/resource_missing/);
    const after = (await (await fetch(`${host.url}/v1/reports?limit=200`, { headers: { authorization: `Bearer ${host.apiKey}` } })).json()).data.length;
    expect(after).toBe(before);
    expect(await readdir(dir).then((f) => f.includes("x.csv"))).toBe(false);
  });
});

import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../adapters/cli/host";
import { parseCsv } from "../support/csv";

/**
 * Reports on the embedded default of `npm start`: PGlite and report files under the data
 * folder, workers on the real-time clock, links served by the host over TCP without a key.
 */
describe("reports on the host server", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("builds a report in the background, serves its file without a key, refuses altered links, and keeps it across a restart", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "payrail-host-reports-"));
    dirs.push(dataDir);
    let host: RunningHost = await startHost({ port: 0, dataDir });
    const headers = () => ({ authorization: `Bearer ${host.apiKey}`, "content-type": "application/json" });
    const call = async (method: string, path: string, body?: unknown, key?: string) => {
      const res = await fetch(`${host.url}${path}`, {
        method,
        headers: { ...headers(), ...(key ? { "Idempotency-Key": key } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return res.json() as Promise<any>;
    };
    const tick = () => new Promise((r) => setTimeout(r, 5));
    let reportId: string;
    let url: string;
    try {
      const rcp = await call("POST", "/v1/recipients", { name: "Alice", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
      const payout = (amount: string, key: string) => call("POST", "/v1/payouts", { amount, asset: "USDC", recipient: rcp.id }, key);
      const before = await payout("1", "host-report-1");
      await tick();
      const gte = new Date().toISOString();
      await tick();
      const inside = await payout("2", "host-report-2");
      await tick();
      const lt = new Date().toISOString();
      await tick();
      const after = await payout("3", "host-report-3");

      const pending = await call("POST", "/v1/reports", { type: "payout_ledger", created_gte: gte, created_lt: lt });
      expect(pending).toMatchObject({ object: "report", status: "pending", parameters: { created_gte: gte, created_lt: lt } });
      reportId = pending.id;
      let report = pending;
      for (let i = 0; i < 200 && report.status === "pending"; i++) {
        await new Promise((r) => setTimeout(r, 25));
        report = await call("GET", `/v1/reports/${reportId}`);
      }
      expect(report.status).toBe("ready");
      url = report.url;
      expect(url.startsWith(`${host.url}/v1/files/reports/${host.accountId}/${reportId}.csv?`)).toBe(true);

      const file = await fetch(url); // no API key
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      const text = await file.text();
      const [header, ...rows] = parseCsv(text);
      expect(header).toEqual(["payout", "leg", "chain", "asset", "amount", "fee", "balance_type", "ledger_entry", "created", "metadata"]);
      const listed = await call("GET", `/v1/ledger_entries?created_gte=${gte}&created_lt=${lt}&limit=200`);
      const ofPayouts = listed.data.filter((e: any) => e.resource?.startsWith("po_")).reverse();
      expect(rows.map((r) => r[7])).toEqual(ofPayouts.map((e: any) => e.id));
      // the payout made inside the window is reserved there; those before and after are not
      const insideRows = rows.filter((r) => r[0] === inside.id);
      expect(insideRows.slice(0, 2).map((r) => [r[6], r[1]])).toEqual([
        ["available", inside.legs[0].id],
        ["reserved", inside.legs[0].id],
      ]);
      expect(rows.some((r) => r[0] === after.id)).toBe(false);
      expect(rows.filter((r) => r[0] === before.id && r[6] === "available")).toEqual([]);
      // the file is on disk under the data folder
      expect(await readFile(join(dataDir, "blobs", "reports", host.accountId, `${reportId}.csv`), "utf8")).toBe(text);

      const denied = await fetch(url.replace(reportId, `${reportId.slice(0, -1)}${reportId.endsWith("x") ? "y" : "x"}`));
      expect(denied.status).toBe(403);
      expect((await denied.json()).error).toMatchObject({ type: "permission_error", code: "permission_denied" });
    } finally {
      await host.stop();
    }

    host = await startHost({ port: 0, dataDir });
    try {
      const again = await call("GET", `/v1/reports/${reportId}`);
      expect(again.status).toBe("ready");
      const file = await fetch(again.url);
      expect(file.status).toBe(200);
      expect((await file.text()).split("\r\n")[0]).toBe("payout,leg,chain,asset,amount,fee,balance_type,ledger_entry,created,metadata");
    } finally {
      await host.stop();
    }
  }, 60_000);
});

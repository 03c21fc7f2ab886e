import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStorage, pgPoolDriver, pgliteDriver, type PGliteLike, type PostgresDriver } from "../../../adapters/postgres";
import { deliveryListSql } from "../../../adapters/postgres/stores/deliveries";
import type { DeliveryLogRecord } from "../../../src/ports";

/**
 * The delivery log keeps four indexes (migration 23 dropped the one of an endpoint's newest
 * attempts): every page of an endpoint's log is still read from an index, stopped at the page's
 * size, never by scanning and sorting the endpoint's attempts. On the server when DATABASE_URL is
 * set, on PGlite otherwise; 12,000 attempts over 40 accounts of 3 endpoints each (100 to an endpoint), a tenth
 * failed, analyzed.
 */
const T0 = Date.UTC(2026, 0, 1);
const schema = `t_dlvplan_${process.pid}_${Date.now().toString(36)}`;
let pool: pg.Pool | null = null;
let lite: PGlite | null = null;
let driver: PostgresDriver;
let storage: PostgresStorage;

beforeAll(async () => {
  if (process.env.DATABASE_URL) {
    pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    driver = pgPoolDriver(pool, { ownsPool: false });
  } else {
    lite = await PGlite.create();
    driver = pgliteDriver(lite as unknown as PGliteLike, { ownsDatabase: false });
  }
  storage = new PostgresStorage(driver, { schema });
  await storage.init();
  const rows: DeliveryLogRecord[] = Array.from({ length: 12_000 }, (_, i) => ({
    accountId: `acct_${i % 40}`,
    id: `dlv_${String(i).padStart(26, "0")}`,
    endpointId: `we_${i % 3}`,
    eventId: `evt_${String(Math.floor(i / 3)).padStart(26, "0")}`,
    eventType: "payout.settled",
    attempt: 1,
    trigger: "scheduled",
    status: i % 10 === 0 ? "failed" : "succeeded",
    responseStatus: i % 10 === 0 ? 500 : 200,
    latencyMs: 3,
    error: i % 10 === 0 ? "HTTP 500" : null,
    created: T0 + i * 1000,
    nextAttemptAt: null,
  }));
  await storage.transaction((tx) => tx.deliveries.insert(rows));
  await driver.query(`ANALYZE "${schema}".webhook_deliveries`);
}, 120_000);

afterAll(async () => {
  await driver.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool?.end();
  await lite?.close();
});

async function plan(query: Parameters<typeof deliveryListSql>[1]): Promise<string> {
  const { text, params } = deliveryListSql(`"${schema}"`, query);
  const { rows } = await driver.query<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, params);
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

describe("the delivery log's pages", () => {
  it("keeps four indexes: no index of its own for an endpoint's newest attempts", async () => {
    const { rows } = await driver.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'webhook_deliveries' ORDER BY indexname`,
      [schema],
    );
    expect(rows.map((r) => r.indexname)).toEqual([
      "webhook_deliveries_by_age",
      "webhook_deliveries_by_event",
      "webhook_deliveries_by_status",
      "webhook_deliveries_pkey",
    ]);
  });

  const pages: [string, Parameters<typeof deliveryListSql>[1], string][] = [
    ["newest first", { accountId: "acct_0", endpointId: "we_1", limit: 10 }, "webhook_deliveries_by_status"],
    ["after a cursor", { accountId: "acct_0", endpointId: "we_1", limit: 10, after: { created: T0 + 3_000_000, id: "dlv_x" } }, "webhook_deliveries_by_status"],
    [
      "oldest first in a created range",
      { accountId: "acct_0", endpointId: "we_2", limit: 10, order: "asc", createdGte: T0 + 1_000_000, createdLt: T0 + 2_000_000 },
      "webhook_deliveries_by_status",
    ],
    ["of one status", { accountId: "acct_0", endpointId: "we_0", limit: 10, status: "failed" }, "webhook_deliveries_by_status"],
    ["of one event", { accountId: "acct_0", endpointId: "we_0", limit: 10, eventId: `evt_${"7".padStart(26, "0")}` }, "webhook_deliveries_by_event"],
  ];
  it.each(pages)("reads a page %s from an index only, never the endpoint's attempts whole", async (_, query, index) => {
    const text = await plan(query);
    expect(text).not.toMatch(/Seq Scan/);
    // every range read is of the one index, on the account and endpoint (a bitmap scan reads it too)
    const read = [...text.matchAll(/(?:Index Scan(?: Backward)? using|Bitmap Index Scan on) (\w+)/g)].map((m) => m[1]);
    expect(read.length).toBeGreaterThan(0);
    expect(new Set(read)).toEqual(new Set([index]));
  });

  it("lists what a scan of the whole log would, page after page, in either order", async () => {
    for (const order of ["desc", "asc"] as const) {
      const seen: string[] = [];
      let after: { created: number; id: string } | undefined;
      for (;;) {
        const page = await storage.transaction((tx) =>
          tx.deliveries.list({ accountId: "acct_0", endpointId: "we_1", limit: 30, order, ...(after ? { after } : {}) }),
        );
        seen.push(...page.map((r) => r.id));
        if (page.length < 30) break;
        after = { created: page.at(-1)!.created, id: page.at(-1)!.id };
      }
      // acct_0's we_1: the attempts i with i % 40 = 0 and i % 3 = 1
      const all = Array.from({ length: 100 }, (_, k) => `dlv_${String(120 * k + 40).padStart(26, "0")}`);
      expect(seen).toEqual(order === "desc" ? all.reverse() : all);
    }
  });
});

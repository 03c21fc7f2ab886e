import { ManualClock } from "../adapters/clock";
import { devPorts } from "../adapters/dev";
import { createHttpApp } from "../adapters/http";
import { connectPostgres, openPGlite, type PostgresStorage } from "../adapters/postgres";
import { systemContext } from "../src/engine/context";
import { createEngine } from "../src/modules";
import type { Figure } from "./table";
import { dropSchema } from "./schemas";

/**
 * The list contract's promise (docs/decisions.md §5: keyset, never offset): a page costs the same at
 * row 10 and at row 1,000,000. `GET /v1/payouts` through the HTTP app in process, page 1 against
 * the page after a cursor that an earlier walk minted, with a million newer payouts written in
 * front of it since (by SQL, from a real payout's document), so it points a million rows deep.
 * PostgreSQL server with DATABASE_URL; `BENCH_LIST_STORES=pglite,postgres` picks the stores.
 */
const DEPTH = Number(process.env.BENCH_LIST_DEPTH ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 300);
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function benchOn(store: string, storage: PostgresStorage): Promise<Figure[]> {
  const clock = new ManualClock();
  const engine = await createEngine({ storage, ...devPorts({ clock }) });
  try {
    const account = await engine.accounts.create({ name: "bench" });
    const key = (await engine.accounts.createApiKey(account.id))._unsafeUnwrap().key;
    const ctx = systemContext(account.id, false);
    (await engine.testHelpers.fund(ctx, { asset: "USDC", chain: "base", amount: "1000" }))._unsafeUnwrap();
    const recipient = (await engine.recipients.create(ctx, { name: "r", chain_addresses: { base: BASE } }))._unsafeUnwrap().id;
    for (let i = 0; i < 30; i++) {
      (await engine.payouts.create(ctx, { amount: "1", asset: "USDC", recipient }))._unsafeUnwrap();
      clock.advance(1);
    }
    const app = createHttpApp(engine);
    const get = async (query: string) => {
      const res = await app.request(`/v1/payouts?${query}`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status !== 200) throw new Error(`GET /v1/payouts?${query}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { data: { id: string }[]; next_cursor: string | null };
    };
    // a cursor ten rows into the 30 payouts, minted by the engine itself
    const cursor = (await get("limit=10")).next_cursor!;

    const written = performance.now();
    const template = (await engine.payouts.list(ctx, { limit: 1 }))._unsafeUnwrap().data[0]!.id;
    const s = `"${storage.schema}"`;
    await storage.driver.query(
      `INSERT INTO ${s}.resources (account_id, kind, id, created, status, reference, data, version, updated)
       SELECT t.account_id, t.kind, x.id, t.created + g, t.status, t.reference, jsonb_set(t.data, '{id}', to_jsonb(x.id)), 1, t.created + g
       FROM ${s}.resources t, generate_series(1, $3::integer) AS g, LATERAL (SELECT 'po_depth' || lpad(g::text, 9, '0') AS id) AS x
       WHERE t.account_id = $1 AND t.id = $2`,
      [account.id, template, DEPTH],
    );
    await storage.driver.query(`ANALYZE ${s}.resources`);
    console.log(
      `  ${store}: ${DEPTH.toLocaleString("en-US")} payouts written in front of the cursor in ${((performance.now() - written) / 1000).toFixed(1)} s`,
    );

    const first: number[] = [];
    const deep: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      let t = performance.now();
      const page1 = await get("limit=20");
      first.push(performance.now() - t);
      t = performance.now();
      const far = await get(`limit=20&starting_after=${cursor}`);
      deep.push(performance.now() - t);
      if (i === 0 && (page1.data.length !== 20 || far.data.length !== 20 || far.data.some((p) => p.id.startsWith("po_depth")))) {
        throw new Error("the deep page should hold 20 of the first payouts, none of the million in front");
      }
    }
    first.sort((a, b) => a - b);
    deep.sort((a, b) => a - b);
    const [p1, pd] = [percentile(first, 50), percentile(deep, 50)];
    console.log(
      `  ${store}: GET /v1/payouts page 1 p50 ${p1.toFixed(2)} ms, p99 ${percentile(first, 99).toFixed(2)} ms;` +
        ` at depth ${DEPTH.toLocaleString("en-US")} p50 ${pd.toFixed(2)} ms, p99 ${percentile(deep, 99).toFixed(2)} ms (${SAMPLES} each)`,
    );
    return [
      {
        name: `list page at depth ${DEPTH.toLocaleString("en-US")} (p50)`,
        store,
        value: pd,
        unit: "ms",
        floor: { value: p1, what: "page 1" },
        target: { ratio: { max: 1.5 } },
      },
    ];
  } finally {
    await engine.close();
  }
}

export async function benchLists(): Promise<Figure[]> {
  const url = process.env.DATABASE_URL;
  const stores = (process.env.BENCH_LIST_STORES ?? (url ? "postgres" : "pglite")).split(",");
  console.log(`lists: GET /v1/payouts, page 1 against a page ${DEPTH.toLocaleString("en-US")} rows deep`);
  const figures: Figure[] = [];
  if (stores.includes("pglite")) figures.push(...(await benchOn("pglite", await openPGlite())));
  if (stores.includes("postgres")) {
    if (!url) {
      console.log("  postgres: set DATABASE_URL");
    } else {
      const schema = `bench_lists_${process.pid}`;
      try {
        figures.push(...(await benchOn("postgres", await connectPostgres(url, { schema }))));
      } finally {
        await dropSchema(url, schema);
      }
    }
  }
  return figures;
}

import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { ManualClock } from "../../../adapters/clock";
import { isCustomerBook } from "../../../src/ledger/postings";
import { ledgerRow, parseCsv } from "../../support/csv";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * For random histories of funding, payouts (some legs failing), swaps and deposits to payment
 * intents, spread over time with many entries sharing a millisecond, and random windows (either
 * bound absent, bounds between entries, on them, or outside everything), built from pages of a
 * random size: a `ledger_entries` report is the API's ledger entries of the same window row for
 * row (GET /v1/ledger_entries walked by cursor, oldest first), and both are what storage holds
 * (the independent read path); a `payout_ledger` report is exactly those of them that belong to
 * payouts, each naming one of its payout's legs on the entry's chain.
 */

const ADDRESSES = { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", solana: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" };

const actionArb = fc.oneof(
  fc.record({ kind: fc.constant("fund" as const), chain: fc.constantFrom("base", "solana"), amount: fc.integer({ min: 1, max: 500 }) }),
  fc.record({ kind: fc.constant("payout" as const), amount: fc.integer({ min: 1, max: 400 }), fail: fc.boolean() }),
  fc.record({ kind: fc.constant("swap" as const), amount: fc.integer({ min: 1, max: 50 }) }),
  fc.record({ kind: fc.constant("deposit" as const), amount: fc.integer({ min: 1, max: 300 }), paid: fc.constantFrom(1, 0.5, 1.25) }),
  fc.record({ kind: fc.constant("wait" as const), ms: fc.constantFrom(0, 0, 1, 7, 999, 4_000, 20_000) }),
);

const boundArb = fc.oneof(fc.constant(null), fc.record({ at: fc.double({ min: -0.05, max: 1.05, noNaN: true }), onEntry: fc.boolean() }));

const scenarioArb = fc.record({
  actions: fc.array(actionArb, { minLength: 1, maxLength: 14 }),
  windows: fc.array(fc.tuple(boundArb, boundArb), { minLength: 1, maxLength: 3 }),
  pageSize: fc.integer({ min: 1, max: 7 }),
  listLimit: fc.integer({ min: 1, max: 5 }),
});

const json = (res: Response): Promise<any> => res.json();
const iso = (ms: number) => new Date(ms).toISOString();

type Action = typeof actionArb extends fc.Arbitrary<infer A> ? A : never;

async function run(w: TestWorld, sim: SimulatedChains, actions: Action[]): Promise<void> {
  let key = 0;
  const post = (path: string, body: unknown) => w.request("POST", path, { body, headers: { "Idempotency-Key": `p-${key++}` } });
  const rcp = (await json(await post("/v1/recipients", { name: "Alice", chain_addresses: ADDRESSES }))).id;
  await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "300" });
  await post("/v1/test_helpers/balances/fund", { asset: "ETH", chain: "base", amount: "20" });
  for (const a of actions) {
    switch (a.kind) {
      case "fund":
        await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: a.chain, amount: String(a.amount) });
        break;
      case "payout":
        if (a.fail) sim.failNext("base");
        await post("/v1/payouts", { amount: String(a.amount), asset: "USDC", recipient: rcp }); // may be refused: funds
        break;
      case "swap": {
        const q = await json(await post("/v1/quotes", { from: { asset: "ETH", amount: String(a.amount / 10) }, to: { asset: "USDC" } }));
        if (q.id) await post("/v1/swaps", { quote: q.id, destination_chain: "base" });
        break;
      }
      case "deposit": {
        const pi = await json(await post("/v1/payment_intents", { amount: String(a.amount), asset: "USDC", chains: ["base"] }));
        await post(`/v1/test_helpers/payment_intents/${pi.id}/pay`, { chain: "base", amount: String(a.amount * a.paid) });
        break;
      }
      case "wait":
        w.clock.advance(a.ms);
        await w.engine.worker.runDue();
        break;
    }
  }
  // let everything in flight settle (legs, swaps, deposits), so the window sees final history too
  await post("/v1/test_helpers/clock/advance", { seconds: 30 });
}

/** A window bound from a fraction of the history's span, or exactly an entry's time. */
function bound(b: { at: number; onEntry: boolean } | null, span: [number, number], times: number[]): number | null {
  if (!b) return null;
  if (b.onEntry && times.length) return times[Math.min(times.length - 1, Math.floor(Math.max(0, Math.min(0.999, b.at)) * times.length))]!;
  return Math.round(span[0] + (span[1] - span[0]) * b.at);
}

afterAll(() => closeSharedStorage());

for (const kind of storageKinds()) {
  describe(`report rows on ${kind.name}`, () => {
    it("are the API's ledger entries of the window, row for row", async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, async ({ actions, windows, pageSize, listLimit }) => {
          const clock = new ManualClock();
          const sim = new SimulatedChains({ clock, chains: { base: { liquidity: { USDC: "100000" } }, solana: { liquidity: { USDC: "100000" } } } });
          const w = await testWorld(kind, { clock, chainAdapters: [sim], config: { reportPageSize: pageSize } });
          try {
            const start = clock.now();
            await run(w, sim, actions);
            const stored = (await w.harness.inspect.entries(w.accountId)).filter((e) => isCustomerBook(e.book));
            const times = [...new Set(stored.map((e) => e.created))].sort((a, b) => a - b);
            w.clock.advance(1);
            const now = clock.now();
            for (const [a, b] of windows) {
              const span: [number, number] = [start - 1000, Math.min(now, (times[times.length - 1] ?? now) + 1000)];
              const lo = bound(a, span, times);
              let hi = bound(b, span, times);
              if (hi !== null && hi > now) hi = now;
              if (lo !== null && lo >= (hi ?? now)) continue; // refused as a window (tested elsewhere)
              const params: Record<string, string> = {};
              if (lo !== null) params.created_gte = iso(lo);
              if (hi !== null) params.created_lt = iso(hi);
              const entries = await json(await w.request("POST", "/v1/reports", { body: { type: "ledger_entries", ...params } }));
              const payouts = await json(await w.request("POST", "/v1/reports", { body: { type: "payout_ledger", ...params } }));
              await w.engine.worker.runDue();
              const file = async (id: string) => {
                const report = await json(await w.request("GET", `/v1/reports/${id}`));
                expect(report.status).toBe("ready");
                const url = new URL(report.url);
                const [, ...rows] = parseCsv(await (await w.app.request(url.pathname + url.search)).text());
                expect(rows).toHaveLength(report.row_count);
                return rows;
              };

              // The API's entries of the window, walked page by page, oldest first.
              const listed: any[] = [];
              const window = entries.parameters; // created_lt is now when it was left out
              const query = new URLSearchParams({ created_lt: window.created_lt, limit: String(listLimit) });
              if (window.created_gte) query.set("created_gte", window.created_gte);
              for (let cursor: string | null = null; ; ) {
                if (cursor) query.set("starting_after", cursor);
                const page = await json(await w.request("GET", `/v1/ledger_entries?${query}`));
                listed.push(...page.data);
                cursor = page.next_cursor;
                if (!cursor) break;
              }
              listed.reverse();
              const rows = await file(entries.id);
              expect(rows).toEqual(listed.map((e: any) => ledgerRow(e)));

              // Both are what storage holds (its own read path), in (created, id) order.
              const expected = stored
                .filter((e) => (lo === null || e.created >= lo) && e.created < (hi ?? now))
                .sort((x, y) => x.created - y.created || (x.id < y.id ? -1 : 1));
              expect(rows.map((r) => r[0])).toEqual(expected.map((e) => e.id));

              const payoutRows = await file(payouts.id);
              const ofPayouts = listed.filter((e) => e.resource?.startsWith("po_"));
              expect(payoutRows.map((r) => [r[7], r[0], r[2], r[3], r[4], r[6], r[8]])).toEqual(
                ofPayouts.map((e) => [e.id, e.resource, e.chain, e.asset, e.amount, e.balance_type, e.created]),
              );
              for (const r of payoutRows) {
                const p = await json(await w.request("GET", `/v1/payouts/${r[0]}`));
                expect(p.legs.find((l: any) => l.id === r[1])?.chain).toBe(r[2]);
              }
            }
          } finally {
            await w.close();
          }
        }),
        { numRuns: kind.name === "memory" ? 60 : 8 },
      );
    }, 180_000);
  });
}

import { lineChart, type Point } from "../charts";
import type { PageSet } from "../console-app";
import { apiError, html, table } from "../html";

/** How many ledger entries the balance chart walks back through (5 pages). */
const CHART_ENTRIES = 500;

/** Balances per asset and chain, and the chosen asset's available balance over time, from the ledger. */
export const overviewPages: PageSet = (_app, pages) => {
  pages.get("/", async (p) => {
    if (!p.allows("get", "/v1/balances"))
      return p.render("Balances", "/", apiError({ code: "permission_denied", message: "This grant cannot read balances." }), { status: 403 });
    const balances = await p.api.get<{ data: any[] }>("/v1/balances");
    if (!balances.ok) return p.render("Balances", "/", apiError(balances.error), { status: balances.status });
    const held = balances.body.data.filter((b) => [b.available, b.reserved, b.pending].some((v: string) => Number(v) !== 0));
    const asset = p.query("asset") ?? held[0]?.asset ?? "USDC";
    const chosen = balances.body.data.find((b) => b.asset === asset);
    const points = chosen && p.allows("get", "/v1/ledger_entries") ? await availableOverTime(p.api, asset, Number(chosen.available)) : [];
    const rows = balances.body.data.flatMap((b) =>
      Object.entries(b.chains as Record<string, { available: string; reserved: string; pending: string }>)
        .filter(([, c]) => [c.available, c.reserved, c.pending].some((v) => Number(v) !== 0) || b.asset === asset)
        .map(([chain, c]) => [html`<strong>${b.asset}</strong>`, chain, c.available, c.reserved, c.pending]),
    );
    return p.render(
      "Balances",
      "/",
      html`<h1>Balances</h1>
<div class="cards">${held.map((b) => html`<div class="card"><div class="muted">${b.asset} available</div><div class="big">${b.available}</div><div class="muted">reserved ${b.reserved} · pending ${b.pending}</div></div>`)}</div>
<h2>${asset} available over time</h2>
<form class="filters" method="get" action="${p.base}/"><label>Asset<select name="asset">${balances.body.data.map((b) => html`<option${b.asset === asset ? html` selected` : ""}>${b.asset}</option>`)}</select></label><button type="submit">Show</button></form>
${lineChart(points, `${asset} available`, { step: true, unit: asset })}
<h2>Per chain</h2>
${table("Balances per asset and chain", ["Asset", "Chain", "Available", "Reserved", "Pending"], rows, "No balance yet.")}`,
    );
  });
};

/** The available balance of `asset` after each of its recent ledger entries: today's, walked back entry by entry. */
async function availableOverTime(api: import("../console-api").ConsoleApi, asset: string, now: number): Promise<Point[]> {
  const points: Point[] = [{ t: Date.now(), v: now }];
  let balance = now;
  let after: string | undefined;
  for (let seen = 0; seen < CHART_ENTRIES; ) {
    const page = await api.get<{ data: any[]; has_more: boolean; next_cursor: string | null }>("/v1/ledger_entries", { limit: "100", starting_after: after });
    if (!page.ok) break;
    for (const e of page.body.data) {
      seen++;
      if (e.asset !== asset || e.balance_type !== "available") continue;
      points.push({ t: Date.parse(e.created), v: balance });
      balance -= Number(e.amount);
      points.push({ t: Date.parse(e.created) - 1, v: balance });
    }
    if (!page.body.has_more || !page.body.next_cursor) break;
    after = page.body.next_cursor;
  }
  return points;
}

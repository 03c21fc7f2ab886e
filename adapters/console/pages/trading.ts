import type { PageSet } from "../console-app";
import { apiError, badge, fields, html, link, pager, table, time } from "../html";

/** Swaps (with their quotes) and limit orders (with their fills). A quote is looked up by id: the API lists none. */
export const tradingPages: PageSet = (_app, pages) => {
  pages.get("/swaps", async (p) => {
    const list = await p.api.get("/v1/swaps", {
      limit: "50",
      expand: ["quote"],
      starting_after: p.query("starting_after"),
      ending_before: p.query("ending_before"),
    });
    if (!list.ok) return p.render("Swaps", "/swaps", html`<h1>Swaps</h1>${apiError(list.error)}`, { status: list.status });
    const rows = list.body.data.map((s: any) => [
      html`<code>${s.id}</code>`,
      badge(s.status),
      typeof s.quote === "string"
        ? html`<code>${s.quote}</code>`
        : html`${s.quote.from?.amount ?? ""} ${s.quote.from?.asset ?? ""} → ${s.quote.to?.amount ?? ""} ${s.quote.to?.asset ?? ""}`,
      s.executed_rate ?? "",
      s.failure_code ?? "",
      time(s.created),
    ]);
    const quote = html`<form class="filters" method="get" action="${p.base}/quotes"><label>Quote id<input name="id" placeholder="qt_…" required></label><button type="submit">Look up</button></form>`;
    return p.render(
      "Swaps",
      "/swaps",
      html`<h1>Swaps</h1>${quote}${table("Swaps, newest first", ["Swap", "Status", "Quote", "Executed rate", "Failure", "Created"], rows, "No swap yet.")}${pager(p.base, "/swaps", list.body, {})}`,
    );
  });

  pages.get("/quotes", async (p) => {
    const id = p.query("id") ?? "";
    const q = await p.api.get(`/v1/quotes/${encodeURIComponent(id)}`);
    if (!q.ok) return p.render("Quote", "/swaps", html`<h1>Quote</h1>${apiError(q.error)}`, { status: q.status });
    return p.render(`Quote ${id}`, "/swaps", html`<h1>Quote <code>${id}</code></h1><pre class="scroll"><code>${JSON.stringify(q.body, null, 2)}</code></pre>`);
  });

  pages.get("/limit_orders", async (p) => {
    const status = p.query("status");
    const list = await p.api.get("/v1/limit_orders", {
      status,
      limit: "50",
      starting_after: p.query("starting_after"),
      ending_before: p.query("ending_before"),
    });
    if (!list.ok) return p.render("Limit orders", "/limit_orders", html`<h1>Limit orders</h1>${apiError(list.error)}`, { status: list.status });
    const rows = list.body.data.map((o: any) => [
      link(p.base, `/limit_orders/${o.id}`, o.id),
      badge(o.status),
      `${o.from?.amount ?? ""} ${o.from?.asset ?? ""} → ${o.to.asset}`,
      o.target_rate,
      `${o.filled.from_amount} → ${o.filled.to_amount}`,
      String(o.fills.length),
      time(o.created),
    ]);
    return p.render(
      "Limit orders",
      "/limit_orders",
      html`<h1>Limit orders</h1>${table("Limit orders, newest first", ["Order", "Status", "Pair", "Target rate", "Filled", "Fills", "Created"], rows, "No limit order yet.")}${pager(p.base, "/limit_orders", list.body, { status })}`,
    );
  });

  pages.get("/limit_orders/:id", async (p) => {
    const id = p.param("id");
    const o = await p.api.get(`/v1/limit_orders/${encodeURIComponent(id)}`);
    if (!o.ok) return p.render("Limit order", "/limit_orders", html`<h1>Limit order</h1>${apiError(o.error)}`, { status: o.status });
    const v = o.body;
    const fills = v.fills.map((f: any) => [f.id, f.from_amount, f.to_amount, f.rate, f.network_fee, f.platform_fee, time(f.created)]);
    return p.render(
      `Limit order ${id}`,
      "/limit_orders",
      html`<h1>Limit order <code>${id}</code> ${badge(v.status)}</h1>${fields([
        ["Target rate", v.target_rate],
        ["Filled", `${v.filled.from_amount} → ${v.filled.to_amount}`],
        ["Partial fills", v.partial_fills ? "allowed" : "no"],
        ["Cancellation", v.cancellation_reason],
        ["Expires", time(v.expires_at)],
        ["Created", time(v.created)],
      ])}<h2>Fills</h2>${table("Fills", ["Fill", "From", "To", "Rate", "Network fee", "Platform fee", "Created"], fills, "No fill yet.")}`,
    );
  });
};

import type { PageSet } from "../console-app";
import { apiError, badge, fields, html, link, pager, table, time } from "../html";
import { txLink } from "./payouts";

/** Payment intents and their deposits (settlements) with finality. */
export const intentPages: PageSet = (_app, pages) => {
  pages.get("/payment_intents", async (p) => {
    const filters = { status: p.query("status"), search: p.query("search") };
    const list = await p.api.get("/v1/payment_intents", {
      ...filters,
      limit: "50",
      starting_after: p.query("starting_after"),
      ending_before: p.query("ending_before"),
    });
    if (!list.ok) return p.render("Payment intents", "/payment_intents", html`<h1>Payment intents</h1>${apiError(list.error)}`, { status: list.status });
    const rows = list.body.data.map((pi: any) => [
      link(p.base, `/payment_intents/${pi.id}`, pi.id),
      badge(pi.status),
      html`${pi.amount} ${pi.asset}`,
      pi.reference ?? "",
      time(pi.expires_at),
      time(pi.created),
    ]);
    return p.render(
      "Payment intents",
      "/payment_intents",
      html`<h1>Payment intents</h1>${table("Payment intents, newest first", ["Intent", "Status", "Amount", "Reference", "Expires", "Created"], rows, "No payment intent yet.")}${pager(p.base, "/payment_intents", list.body, filters)}`,
    );
  });

  pages.get("/payment_intents/:id", async (p) => {
    const id = p.param("id");
    const pi = await p.api.get(`/v1/payment_intents/${encodeURIComponent(id)}`, { expand: ["settlements"] });
    if (!pi.ok) return p.render("Payment intent", "/payment_intents", html`<h1>Payment intent</h1>${apiError(pi.error)}`, { status: pi.status });
    const v = pi.body;
    const deposits = (v.settlements as any[]).map((s) =>
      typeof s === "string"
        ? [s, "", "", "", "", ""]
        : [s.id, s.chain ?? "", `${s.amount}`, txLink(p, s.chain, s.tx_hash ?? null), `${s.confirmations} · ${s.finality}`, badge(s.status)],
    );
    return p.render(
      `Payment intent ${id}`,
      "/payment_intents",
      html`<h1>Payment intent <code>${id}</code> ${badge(v.status)}</h1>
${fields([
  ["Amount", `${v.amount} ${v.asset}`],
  ["Chains", v.chains.join(", ")],
  ["Deposit addresses", html`${Object.entries(v.deposit_addresses as Record<string, string>).map(([c, a]) => html`<div>${c}: <code>${a}</code></div>`)}`],
  ["Reference", v.reference],
  ["Expires", time(v.expires_at)],
  ["Created", time(v.created)],
])}
<h2>Deposits</h2>${table("Deposits and their finality", ["Settlement", "Chain", "Amount", "Transaction", "Confirmations", "Status"], deposits, "No deposit yet.")}`,
    );
  });
};

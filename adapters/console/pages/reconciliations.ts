import { done, notice, type PageSet } from "../console-app";
import { actionForm, apiError, badge, fields, html, link, table, time } from "../html";

/**
 * Reconciliations (docs/reconciliation.md): each chain's holdings against the books, the readings
 * newest first (drift marked), one reading's parts and what explains its difference, a run now,
 * and accepting a drift as the operator's own.
 */
export const reconciliationPages: PageSet = (_app, pages) => {
  pages.get("/reconciliations", async (p) => {
    const status = p.query("status");
    const list = await p.api.get("/v1/reconciliations", { limit: "100", ...(status ? { status } : {}) });
    if (!list.ok) return p.render("Reconciliations", "/reconciliations", html`<h1>Reconciliations</h1>${apiError(list.error)}`, { status: list.status });
    const rows = list.body.data.map((r: any) => [
      link(p.base, `/reconciliations/${r.id}`, r.id),
      r.chain,
      r.asset,
      badge(r.status),
      r.on_chain,
      r.in_books,
      r.difference,
      time(r.created),
    ]);
    const run = p.allows("post", "/v1/reconciliations/run") ? actionForm(`${p.base}/reconciliations/run`, "Reconcile every chain now", p.newKey(), {}) : "";
    const filter = html`<p>${link(p.base, "/reconciliations", "All")} · ${link(p.base, "/reconciliations?status=drift", "Drift only")}</p>`;
    return p.render(
      "Reconciliations",
      "/reconciliations",
      html`<h1>Reconciliations</h1>${notice(p)}
<p class="muted">What each chain's addresses hold of an asset, read from the chain, against what the books say they should. A difference is drift.</p>
${filter}${table("Readings, newest first", ["Reading", "Chain", "Asset", "Status", "On chain", "In books", "Difference", "Read"], rows, "No reading yet.")}${run}`,
    );
  });

  pages.post("/reconciliations/run", async (p, form) => {
    const r = await p.api.send("post", "/v1/reconciliations/run", {}, form.idempotency_key ?? p.newKey());
    if (!r.ok)
      return p.render("Reconciliations", "/reconciliations", html`<h1>Reconcile now</h1>${apiError(r.error)}`, {
        status: r.status,
      });
    const drifts = r.body.data.filter((x: any) => x.status === "drift").length;
    return done(p, "/reconciliations", `${r.body.data.length} reading(s), ${drifts} with drift`);
  });

  pages.get("/reconciliations/:id", async (p) => {
    const id = p.param("id");
    const r = await p.api.get(`/v1/reconciliations/${encodeURIComponent(id)}`);
    if (!r.ok) return p.render("Reconciliation", "/reconciliations", html`<h1>Reconciliation</h1>${apiError(r.error)}`, { status: r.status });
    const v = r.body;
    const e = v.explanation;
    const explorer = p.explorers[v.chain];
    const tx = (hash: string) => (explorer ? html`<a href="${explorer.replace("{tx}", hash)}"><code>${hash}</code></a>` : html`<code>${hash}</code>`);
    const accept =
      v.status === "drift" && !e.accepted && p.allows("post", "/v1/reconciliations/:id/accept")
        ? html`<h2>Accept it as the operator's own</h2>
<p class="muted">For a top-up of the hot wallet or a payout the operator made outside the engine: the difference joins the float, and later readings balance. A deposit the engine never read is not the operator's: credit the payer instead.</p>
${actionForm(`${p.base}/reconciliations/${id}/accept`, "Accept the difference", p.newKey(), {}, { fields: html`<label>Reason<input name="reason" required></label>` })}`
        : "";
    return p.render(
      `Reconciliation ${id}`,
      "/reconciliations",
      html`<h1>${v.chain} ${v.asset} ${badge(v.status)} <code>${id}</code></h1>${notice(p)}
${fields([
  ["On chain", v.on_chain],
  ["In books", v.in_books],
  ["Difference", v.difference],
  ["Read at", e.read_at],
  ["Read", time(v.created)],
  ["First reading (took the float)", e.opening ? "yes" : null],
  ["Accepted", e.accepted ? html`${time(e.accepted.at)}: ${e.accepted.reason}` : null],
])}
<h2>On chain</h2>
${fields([
  ["Hot wallet", html`<code>${e.on_chain.hot_wallet.address}</code> holds ${e.on_chain.hot_wallet.amount}`],
  ["Deposit addresses", e.on_chain.deposit_addresses],
])}
<h2>In the books</h2>
${fields([
  ["Balances of every account", e.in_books.balances],
  ["Network fees customers paid", e.in_books.operator_fees],
  ["Deposits credited to no one", e.in_books.unallocated],
  ["Booked off the chain", e.in_books.off_chain],
  ["Network fees paid", e.in_books.network_fees_paid],
  ["Legs carried, not yet final", e.in_books.in_flight],
  ["Operator's float", e.in_books.float],
])}
<h2>What explains the difference</h2>
<h3>Deposit addresses holding more than the deposits read on them</h3>
${table(
  "Deposit addresses holding more than the deposits read on them",
  ["Address", "Holds", "Deposits read"],
  e.addresses.map((a: any) => [html`<code>${a.address}</code>`, a.holds, a.deposits_read]),
  "None.",
)}
<h3>Transfers the engine neither made nor read</h3>
${table(
  "Transfers the engine neither made nor read",
  ["Transaction", "Address", "Amount", "Read at"],
  e.transactions.map((t: any) => [tx(t.tx_hash), html`<code>${t.address}</code>`, t.amount, t.read_at ?? ""]),
  "None found.",
)}
${accept}`,
    );
  });

  pages.post("/reconciliations/:id/accept", async (p, form) => {
    const id = p.param("id");
    const r = await p.api.send(
      "post",
      `/v1/reconciliations/${encodeURIComponent(id)}/accept`,
      { reason: form.reason ?? "" },
      form.idempotency_key ?? p.newKey(),
    );
    if (!r.ok)
      return p.render("Reconciliation", "/reconciliations", html`<h1>Accept</h1>${apiError(r.error)}<p>${link(p.base, `/reconciliations/${id}`, "Back")}</p>`, {
        status: r.status,
      });
    return done(p, `/reconciliations/${id}`, "Accepted: the difference joined the float");
  });
};

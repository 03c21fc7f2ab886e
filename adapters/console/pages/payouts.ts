import { streamSSE } from "hono/streaming";
import type { PageContext, PageSet } from "../console-app";
import { finalStatesOf } from "../../../src/engine/machine-step";
import { batchMachine } from "../../../src/resources/payouts/batch-machine";
import { FINAL_PAYOUT_STATUSES, PAYOUT_STATUSES } from "../../../src/resources/payouts/payout-machine";
import { apiError, badge, fields, html, link, pager, table, time, type Markup } from "../html";

const TERMINAL_BATCH = new Set<string>(finalStatesOf(batchMachine));
const DONE_PAYOUT = new Set<string>(FINAL_PAYOUT_STATUSES);

/** Payouts and batches: lists with the list contract's filters, a payout with its legs and ledger entries, a batch live. */
export const payoutPages: PageSet = (app, pages) => {
  pages.get("/payouts", async (p) => {
    const filters = { status: p.query("status"), search: p.query("search"), created_gte: p.query("created_gte"), created_lt: p.query("created_lt") };
    const list = await p.api.get("/v1/payouts", {
      ...filters,
      limit: "50",
      starting_after: p.query("starting_after"),
      ending_before: p.query("ending_before"),
    });
    const form = html`<form class="filters" method="get" action="${p.base}/payouts">
<label>Status<select name="status"><option value="">any</option>${PAYOUT_STATUSES.map((s) => html`<option${s === filters.status ? html` selected` : ""}>${s}</option>`)}</select></label>
<label>Search<input name="search" value="${filters.search ?? ""}" placeholder="reference prefix or id"></label>
<label>Created from<input name="created_gte" value="${filters.created_gte ?? ""}" placeholder="2026-11-01"></label>
<label>Created before<input name="created_lt" value="${filters.created_lt ?? ""}" placeholder="2026-12-01"></label>
<button type="submit">Filter</button></form>`;
    if (!list.ok) return p.render("Payouts", "/payouts", html`<h1>Payouts</h1>${form}${apiError(list.error)}`, { status: list.status });
    const rows = list.body.data.map((po: any) => [
      link(p.base, `/payouts/${po.id}`, po.id),
      badge(po.status),
      html`${po.amount} ${po.asset}`,
      po.reference ?? "",
      po.batch ? link(p.base, `/batches/${po.batch}`, po.batch) : "",
      time(po.created),
    ]);
    return p.render(
      "Payouts",
      "/payouts",
      html`<h1>Payouts</h1>${form}${table("Payouts, newest first", ["Payout", "Status", "Amount", "Reference", "Batch", "Created"], rows, "No payout matches.")}${pager(p.base, "/payouts", list.body, filters)}`,
    );
  });

  pages.get("/payouts/:id", async (p) => {
    const id = p.param("id");
    const po = await p.api.get(`/v1/payouts/${encodeURIComponent(id)}`, { expand: ["ledger_entries"] });
    if (!po.ok) return p.render("Payout", "/payouts", html`<h1>Payout</h1>${apiError(po.error)}`, { status: po.status });
    const v = po.body;
    const legs = v.legs.map((l: any) => [
      l.id,
      l.chain,
      html`${l.amount} ${v.asset}`,
      badge(l.status),
      txLink(p, l.chain, l.tx_hash),
      String(l.confirmations),
      badge(l.finality),
      l.failure_code ?? "",
    ]);
    const entries = (v.ledger_entries as any[]).map((e) =>
      typeof e === "string" ? [e, "", "", "", ""] : [e.id, e.chain, e.amount, e.balance_type, time(e.created)],
    );
    return p.render(
      `Payout ${v.id}`,
      "/payouts",
      html`<h1>Payout <code>${v.id}</code> ${badge(v.status)}</h1>
${fields([
  ["Amount", `${v.amount} ${v.asset}`],
  ["Fee", `${v.fee} ${v.asset}`],
  ["Recipient", html`<code>${v.recipient}</code>`],
  ["Reference", v.reference],
  ["Batch", v.batch ? link(p.base, `/batches/${v.batch}`, v.batch) : null],
  ["Created", time(v.created)],
  ["Settled", time(v.settled_at)],
])}
<h2>Legs</h2>${table("Chain legs", ["Leg", "Chain", "Amount", "Status", "Transaction", "Confirmations", "Finality", "Failure"], legs)}
<h2>Ledger entries</h2>${table("Ledger entries of this payout", ["Entry", "Chain", "Amount", "Balance", "Created"], entries)}`,
    );
  });

  pages.get("/batches", async (p) => {
    const list = await p.api.get("/v1/payouts/batches", { limit: "50", starting_after: p.query("starting_after"), ending_before: p.query("ending_before") });
    if (!list.ok) return p.render("Batches", "/batches", html`<h1>Batches</h1>${apiError(list.error)}`, { status: list.status });
    const rows = list.body.data.map((b: any) => [
      link(p.base, `/batches/${b.id}`, b.id),
      badge(b.status),
      String(b.leg_count),
      `${b.total_amount} ${b.funding.asset}`,
      counts(b.counts),
      time(b.created),
    ]);
    return p.render(
      "Batches",
      "/batches",
      html`<h1>Batches</h1>${table("Batches, newest first", ["Batch", "Status", "Legs", "Total", "Progress", "Created"], rows, "No batch yet.")}${pager(p.base, "/batches", list.body, {})}`,
    );
  });

  pages.get("/batches/:id", async (p) => {
    const id = p.param("id");
    const b = await p.api.get(`/v1/payouts/batches/${encodeURIComponent(id)}`);
    if (!b.ok) return p.render("Batch", "/batches", html`<h1>Batch</h1>${apiError(b.error)}`, { status: b.status });
    const failedRows = (await failedOf(p, id, b.body.counts.failed ?? 0)).map((po: any) => [
      String(po.row),
      link(p.base, `/payouts/${po.id}`, po.id),
      html`${po.amount} ${po.asset}`,
      po.legs
        .map((l: any) => l.failure_code)
        .filter(Boolean)
        .join(", "),
    ]);
    const live = TERMINAL_BATCH.has(b.body.status) ? undefined : `${p.base}/batches/${encodeURIComponent(id)}/live`;
    return p.render(
      `Batch ${id}`,
      "/batches",
      html`<h1>Batch <code>${id}</code></h1>${batchProgress(b.body)}
<h2>Failed rows</h2>${table("Failed rows of this batch", ["Row", "Payout", "Amount", "Failure"], failedRows, "No failed row.")}
${failedRows.length < (b.body.counts.failed ?? 0) ? html`<p class="muted">${(b.body.counts.failed ?? 0) - failedRows.length} more failed rows are not listed: they are older than the account's newest 1,000 failed payouts.</p>` : ""}
`,
      live ? { live } : {},
    );
  });

  // The batch's progress as server-sent events, once a second until it ends (the page's script swaps it in).
  app.get("/batches/:id/live", (c) => {
    const p = c.get("page");
    const id = c.req.param("id");
    return streamSSE(c, async (stream) => {
      // at most 5 minutes a stream (the browser's EventSource connects again), the grant asked again
      // every 30 s, a passing 5xx waited out; a host stopping cuts it with the other connections
      for (let i = 0; i < 300 && !stream.aborted; i++) {
        if (i > 0 && i % 30 === 0 && !(await p.stillGranted())) break;
        const b = await p.api.get(`/v1/payouts/batches/${encodeURIComponent(id)}`);
        if (!b.ok && b.status >= 500) {
          await stream.sleep(1000);
          continue;
        }
        if (!b.ok) break;
        await stream.writeSSE({ event: "replace", data: JSON.stringify({ id: "batch-progress", html: String(await batchProgress(b.body)) }) });
        if (TERMINAL_BATCH.has(b.body.status)) break;
        await stream.sleep(1000);
      }
      await stream.writeSSE({ event: "done", data: "{}" });
    });
  });
};

/** The batch's failed payouts: the list has no batch filter, so the newest failed payouts are walked (at most 1,000). */
async function failedOf(p: PageContext, batch: string, expected: number): Promise<any[]> {
  const found: any[] = [];
  let after: string | undefined;
  for (let pageNo = 0; pageNo < 5 && found.length < expected; pageNo++) {
    const page = await p.api.get("/v1/payouts", { status: "failed", limit: "200", starting_after: after });
    if (!page.ok) break;
    found.push(...page.body.data.filter((po: any) => po.batch === batch));
    if (!page.body.has_more) break;
    after = page.body.next_cursor;
  }
  return found.sort((a, b) => a.row - b.row);
}

function counts(c: Record<string, number>): string {
  return Object.entries(c)
    .map(([k, v]) => `${k} ${v}`)
    .join(" · ");
}

/** The batch's state and its legs by state, as a progress bar (what the live stream replaces). */
function batchProgress(b: any): Markup {
  const done = Object.entries(b.counts as Record<string, number>)
    .filter(([k]) => DONE_PAYOUT.has(k))
    .reduce((n, [, v]) => n + v, 0);
  return html`<section id="batch-progress" aria-live="polite">
<p>Status ${badge(b.status)} · ${done} of ${b.leg_count} legs done</p>
<progress max="${b.leg_count}" value="${done}" aria-label="Legs done">${done} of ${b.leg_count}</progress>
${fields([
  ["Total", `${b.total_amount} ${b.funding.asset}`],
  ["By state", counts(b.counts)],
  ["Reference", b.reference],
  ["Created", time(b.created)],
  ["Completed", time(b.completed_at)],
])}
</section>`;
}

/** A transaction hash, linked to the chain's explorer when the host configured one. */
export function txLink(p: PageContext, chain: string, hash: string | null): Markup | string {
  if (!hash) return "";
  const template = p.explorers[chain];
  return template ? html`<a href="${template.replace("{tx}", hash)}" rel="noopener noreferrer"><code>${hash}</code></a>` : html`<code>${hash}</code>`;
}

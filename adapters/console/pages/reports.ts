import { REPORT_TYPES } from "../../../src/resources/reports/report-doc";
import { done, notice, type PageSet } from "../console-app";
import { actionForm, apiError, badge, fields, html, link, table, time } from "../html";

/** Reports: create one, watch it build, download its file (through the engine's download route). */
export const reportPages: PageSet = (_app, pages) => {
  pages.get("/reports", async (p) => {
    const list = await p.api.get("/v1/reports", { limit: "50" });
    if (!list.ok) return p.render("Reports", "/reports", html`<h1>Reports</h1>${apiError(list.error)}`, { status: list.status });
    const rows = list.body.data.map((r: any) => [
      link(p.base, `/reports/${r.id}`, r.id),
      r.type,
      badge(r.status),
      r.row_count === null ? "" : String(r.row_count),
      time(r.created),
    ]);
    const create = p.allows("post", "/v1/reports")
      ? html`<h2>Create a report</h2>${actionForm(
          `${p.base}/reports`,
          "Create report",
          p.newKey(),
          {},
          {
            fields: html`<label>Type<select name="type">${REPORT_TYPES.map((t) => html`<option>${t}</option>`)}</select></label>
<label>From<input name="created_gte" placeholder="2026-11-01"></label><label>Before<input name="created_lt" placeholder="now"></label>`,
          },
        )}`
      : "";
    return p.render(
      "Reports",
      "/reports",
      html`<h1>Reports</h1>${notice(p)}${table("Reports, newest first", ["Report", "Type", "Status", "Rows", "Created"], rows, "No report yet.")}${create}`,
    );
  });

  pages.post("/reports", async (p, form) => {
    const body = {
      type: form.type,
      ...(form.created_gte ? { created_gte: form.created_gte } : {}),
      ...(form.created_lt ? { created_lt: form.created_lt } : {}),
    };
    const r = await p.api.send("post", "/v1/reports", body, form.idempotency_key ?? p.newKey());
    if (!r.ok)
      return p.render("Reports", "/reports", html`<h1>Create a report</h1>${apiError(r.error)}<p>${link(p.base, "/reports", "Back")}</p>`, {
        status: r.status,
      });
    return done(p, `/reports/${r.body.id}`, "Report requested");
  });

  pages.get("/reports/:id", async (p) => {
    const id = p.param("id");
    const r = await p.api.get(`/v1/reports/${encodeURIComponent(id)}`);
    if (!r.ok) return p.render("Report", "/reports", html`<h1>Report</h1>${apiError(r.error)}`, { status: r.status });
    const v = r.body;
    return p.render(
      `Report ${id}`,
      "/reports",
      html`<h1>Report <code>${id}</code> ${badge(v.status)}</h1>${notice(p)}
${fields([
  ["Type", v.type],
  ["Rows", v.row_count === null ? null : String(v.row_count)],
  ["Created", time(v.created)],
  ["Completed", time(v.completed_at)],
  ["Failure", v.failure_reason],
])}
${v.url ? html`<p><a href="${p.base}/reports/${id}/file" download>Download the CSV</a></p>` : html`<p class="muted">The file is not ready yet: reload to watch it.</p>`}`,
    );
  });

  pages.get("/reports/:id/file", async (p) => {
    const r = await p.api.get(`/v1/reports/${encodeURIComponent(p.param("id"))}`);
    if (!r.ok || !r.body.url)
      return p.render("Report", "/reports", apiError(r.ok ? { code: "resource_missing", message: "The file is not ready" } : r.error), {
        status: r.ok ? 404 : r.status,
      });
    return p.api.file(r.body.url);
  });
};

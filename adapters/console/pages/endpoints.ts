import { lineChart } from "../charts";
import { done, notice, type PageContext, type PageSet } from "../console-app";
import { actionForm, apiError, badge, fields, html, link, pager, secretOnce, table, time } from "../html";

/**
 * Webhook endpoints with their delivery attempts, success rate and latency, and the buttons
 * that call the API (create, disable/enable, replay a window, resend one event, rotate the
 * secret). The console and the portal share these pages.
 */
export const endpointPages: PageSet = (_app, pages) => {
  pages.get("/webhook_endpoints", async (p) => {
    const list = await p.api.get("/v1/webhook_endpoints", { limit: "100", starting_after: p.query("starting_after"), ending_before: p.query("ending_before") });
    if (!list.ok) return p.render("Webhook endpoints", "/webhook_endpoints", html`<h1>Webhook endpoints</h1>${apiError(list.error)}`, { status: list.status });
    const rows = list.body.data.map((e: any) => [
      link(p.base, `/webhook_endpoints/${e.id}`, e.id),
      html`<code>${e.url}</code>`,
      badge(e.status),
      e.enabled_events.join(", "),
      time(e.created),
    ]);
    const create = p.allows("post", "/v1/webhook_endpoints")
      ? html`<h2>Add an endpoint</h2>${actionForm(
          `${p.base}/webhook_endpoints`,
          "Add endpoint",
          p.newKey(),
          {},
          {
            fields: html`<label>URL<input name="url" type="url" required placeholder="https://example.com/webhooks"></label>
<label>Events<input name="enabled_events" value="*" placeholder="* or payout.settled,payout.failed"></label>
<label>Description<input name="description"></label>`,
          },
        )}`
      : "";
    return p.render(
      "Webhook endpoints",
      "/webhook_endpoints",
      html`<h1>Webhook endpoints</h1>${notice(p)}${table("Endpoints", ["Endpoint", "URL", "Status", "Events", "Created"], rows, "No endpoint yet.")}${pager(p.base, "/webhook_endpoints", list.body, {})}${create}`,
    );
  });

  pages.post("/webhook_endpoints", async (p, form) => {
    const events = (form.enabled_events || "*")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const body = { url: form.url, enabled_events: events, ...(form.description ? { description: form.description } : {}) };
    const created = await p.api.send("post", "/v1/webhook_endpoints", body, form.idempotency_key ?? p.newKey());
    if (!created.ok)
      return p.render(
        "Webhook endpoints",
        "/webhook_endpoints",
        html`<h1>Add an endpoint</h1>${apiError(created.error)}<p>${link(p.base, "/webhook_endpoints", "Back")}</p>`,
        { status: created.status },
      );
    return showSecret(p, created.body.id, created.body.secret, "Endpoint added");
  });

  pages.get("/webhook_endpoints/:id", async (p) => {
    const id = p.param("id");
    const path = `/v1/webhook_endpoints/${encodeURIComponent(id)}`;
    const endpoint = await p.api.get(path);
    if (!endpoint.ok)
      return p.render("Webhook endpoint", "/webhook_endpoints", html`<h1>Webhook endpoint</h1>${apiError(endpoint.error)}`, { status: endpoint.status });
    const e = endpoint.body;
    const status = p.query("status");
    const deliveries = await p.api.get(`${path}/deliveries`, {
      limit: "100",
      status,
      starting_after: p.query("starting_after"),
      ending_before: p.query("ending_before"),
    });
    const data: any[] = deliveries.ok ? deliveries.body.data : [];
    const succeeded = data.filter((d) => d.status === "succeeded").length;
    const rate = status
      ? "shown without a status filter"
      : data.length
        ? `${((100 * succeeded) / data.length).toFixed(1)} % of the last ${data.length} attempts`
        : "no attempt yet";
    const write = p.allows("post", "/v1/webhook_endpoints/:id");
    const resend = p.allows("post", "/v1/events/:id/resend");
    const rows = data.map((d) => [
      time(d.created),
      link(p.base, `/events/${d.event}`, d.event_type),
      badge(d.status),
      d.response_status === null ? "none" : String(d.response_status),
      `${d.latency_ms} ms`,
      String(d.attempt),
      d.trigger,
      resend ? actionForm(`${p.base}/webhook_endpoints/${e.id}/resend`, "Resend", p.newKey(), { event: String(d.event) }) : "",
    ]);
    const actions = write
      ? html`<h2>Actions</h2>
${
  e.status === "enabled"
    ? actionForm(`${p.base}/webhook_endpoints/${e.id}/status`, "Disable", p.newKey(), { status: "disabled" }, { danger: true })
    : actionForm(`${p.base}/webhook_endpoints/${e.id}/status`, "Enable", p.newKey(), { status: "enabled" })
}
${actionForm(
  `${p.base}/webhook_endpoints/${e.id}/replay`,
  "Replay window",
  p.newKey(),
  {},
  {
    fields: html`<label>From<input name="from" required placeholder="2026-11-27T00:00:00Z"></label><label>To<input name="to" placeholder="now"></label>`,
  },
)}
${p.allows("post", "/v1/webhook_endpoints/:id/recover") ? actionForm(`${p.base}/webhook_endpoints/${e.id}/recover`, "Recover failed", p.newKey(), {}, { fields: html`<label>Failed since<input name="since" required placeholder="2026-11-27T00:00:00Z"></label>` }) : ""}
${actionForm(`${p.base}/webhook_endpoints/${e.id}/rotate`, "Rotate secret", p.newKey(), {}, { danger: true })}`
      : "";
    return p.render(
      `Endpoint ${e.id}`,
      "/webhook_endpoints",
      html`<h1>Endpoint <code>${e.id}</code> ${badge(e.status)}</h1>${notice(p)}
${fields([
  ["URL", html`<code>${e.url}</code>`],
  ["Events", e.enabled_events.join(", ")],
  ["Description", e.description],
  ["Signature scheme", e.signature_scheme ?? "stripe"],
  ["Rate limit", e.rate_limit ? `${e.rate_limit} deliveries per second` : "none"],
  ["Disabled because", e.disabled_reason],
  ["Success rate", rate],
  ["Created", time(e.created)],
])}
${actions}
<h2>Latency</h2>${lineChart(
        data.map((d) => ({ t: Date.parse(d.created), v: d.latency_ms })),
        status ? `Latency of ${status} attempts` : "Delivery latency",
        { unit: "ms" },
      )}
<h2>Delivery attempts</h2>
<form class="filters" method="get" action="${p.base}/webhook_endpoints/${e.id}"><label>Status<select name="status"><option value="">any</option>${["succeeded", "failed"].map((s) => html`<option${s === status ? html` selected` : ""}>${s}</option>`)}</select></label><button type="submit">Filter</button></form>
${deliveries.ok ? table("Delivery attempts, newest first", ["When", "Event", "Status", "HTTP", "Latency", "Attempt", "Trigger", ""], rows, "No attempt yet.") : apiError(deliveries.error)}
${deliveries.ok ? pager(p.base, `/webhook_endpoints/${e.id}`, deliveries.body, { status }) : ""}`,
    );
  });

  pages.post("/webhook_endpoints/:id/status", async (p, form) => {
    const id = p.param("id");
    const r = await p.api.send("post", `/v1/webhook_endpoints/${encodeURIComponent(id)}`, { status: form.status }, form.idempotency_key ?? p.newKey());
    return r.ok ? done(p, `/webhook_endpoints/${id}`, `Endpoint ${r.body.status}`) : failed(p, id, r.error, r.status);
  });

  pages.post("/webhook_endpoints/:id/replay", async (p, form) => {
    const id = p.param("id");
    const body = { from: form.from, ...(form.to ? { to: form.to } : {}) };
    const r = await p.api.send("post", `/v1/webhook_endpoints/${encodeURIComponent(id)}/replay`, body, form.idempotency_key ?? p.newKey());
    return r.ok ? done(p, `/webhook_endpoints/${id}`, `${r.body.event_count} events queued again`) : failed(p, id, r.error, r.status);
  });

  pages.post("/webhook_endpoints/:id/recover", async (p, form) => {
    const id = p.param("id");
    const r = await p.api.send("post", `/v1/webhook_endpoints/${encodeURIComponent(id)}/recover`, { since: form.since }, form.idempotency_key ?? p.newKey());
    return r.ok ? done(p, `/webhook_endpoints/${id}`, `${r.body.event_count} failed events queued again`) : failed(p, id, r.error, r.status);
  });

  pages.post("/webhook_endpoints/:id/resend", async (p, form) => {
    const id = p.param("id");
    const r = await p.api.send("post", `/v1/events/${encodeURIComponent(form.event ?? "")}/resend`, { endpoint: id }, form.idempotency_key ?? p.newKey());
    return r.ok ? done(p, `/webhook_endpoints/${id}`, `Event ${form.event} sent again`) : failed(p, id, r.error, r.status);
  });

  pages.post("/webhook_endpoints/:id/rotate", async (p, form) => {
    const id = p.param("id");
    const r = await p.api.send("post", `/v1/webhook_endpoints/${encodeURIComponent(id)}/rotate_secret`, {}, form.idempotency_key ?? p.newKey());
    return r.ok ? showSecret(p, id, r.body.secret, "Secret rotated") : failed(p, id, r.error, r.status);
  });
};

function failed(p: PageContext, id: string, error: { code: string; message: string }, status: number): Response | Promise<Response> {
  return p.render(
    "Webhook endpoint",
    "/webhook_endpoints",
    html`<h1>Endpoint <code>${id}</code></h1>${apiError(error)}<p>${link(p.base, `/webhook_endpoints/${id}`, "Back")}</p>`,
    { status },
  );
}

/** A signing secret is shown once, on the answer to the form that made it (`secretOnce`). */
function showSecret(p: PageContext, id: string, secret: string | undefined, title: string): Response | Promise<Response> {
  const lead = html`The signing secret of <code>${id}</code>, shown this once:`;
  return p.render(title, "/webhook_endpoints", secretOnce(title, lead, secret, link(p.base, `/webhook_endpoints/${id}`, "Go to the endpoint")));
}

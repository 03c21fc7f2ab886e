import type { PageSet } from "../console-app";
import { apiError, fields, html, link, pager, table, time } from "../html";

/** Events: the list (by type, created range) and one event with its payload. */
export const eventPages: PageSet = (_app, pages) => {
  pages.get("/events", async (p) => {
    const filters = { type: p.query("type"), created_gte: p.query("created_gte"), created_lt: p.query("created_lt") };
    const list = await p.api.get("/v1/events", { ...filters, limit: "50", starting_after: p.query("starting_after"), ending_before: p.query("ending_before") });
    const form = html`<form class="filters" method="get" action="${p.base}/events"><label>Type<input name="type" value="${filters.type ?? ""}" placeholder="payout.settled"></label><button type="submit">Filter</button></form>`;
    if (!list.ok) return p.render("Events", "/events", html`<h1>Events</h1>${form}${apiError(list.error)}`, { status: list.status });
    const rows = list.body.data.map((e: any) => [
      link(p.base, `/events/${e.id}`, e.id),
      e.type,
      html`<code>${e.data?.object?.id ?? ""}</code>`,
      time(e.created),
    ]);
    return p.render(
      "Events",
      "/events",
      html`<h1>Events</h1>${form}${table("Events, newest first", ["Event", "Type", "Object", "Created"], rows, "No event yet.")}${pager(p.base, "/events", list.body, filters)}`,
    );
  });

  pages.get("/events/:id", async (p) => {
    const id = p.param("id");
    const e = await p.api.get(`/v1/events/${encodeURIComponent(id)}`);
    if (!e.ok) return p.render("Event", "/events", html`<h1>Event</h1>${apiError(e.error)}`, { status: e.status });
    return p.render(
      `Event ${id}`,
      "/events",
      html`<h1>Event <code>${id}</code></h1>${fields([
        ["Type", e.body.type],
        ["Created", time(e.body.created)],
        ["Request", e.body.request?.id ?? null],
      ])}<h2>Payload</h2><pre class="scroll"><code>${JSON.stringify(e.body.data.object, null, 2)}</code></pre>`,
    );
  });
};

import { done, notice, type PageContext, type PageSet } from "../console-app";
import { actionForm, apiError, badge, html, link, secretOnce, table, time } from "../html";

/** API keys: list, create, roll and revoke; a new secret is shown once, on the answer to its form. Full access only, as the API has it. */
export const keyPages: PageSet = (_app, pages) => {
  pages.get("/api_keys", async (p) => {
    const list = await p.api.get("/v1/api_keys", { limit: "100" });
    if (!list.ok) return p.render("API keys", "/api_keys", html`<h1>API keys</h1>${apiError(list.error)}`, { status: list.status });
    const write = p.allows("post", "/v1/api_keys");
    const rows = list.body.data.map((k: any) => [
      html`<code>${k.id}</code>`,
      k.name ?? "",
      k.scopes.length ? k.scopes.join(", ") : "full access",
      badge(k.status),
      time(k.last_used),
      time(k.created),
      write && k.status === "active"
        ? html`${actionForm(`${p.base}/api_keys/${k.id}/roll`, "Roll", p.newKey())}${actionForm(`${p.base}/api_keys/${k.id}/revoke`, "Revoke", p.newKey(), {}, { danger: true })}`
        : "",
    ]);
    const create = write
      ? html`<h2>Create a key</h2>${actionForm(
          `${p.base}/api_keys`,
          "Create key",
          p.newKey(),
          {},
          {
            fields: html`<label>Name<input name="name" required></label><label>Scopes<input name="scopes" placeholder="empty: full access; payouts:read,…"></label>`,
          },
        )}`
      : "";
    return p.render(
      "API keys",
      "/api_keys",
      html`<h1>API keys</h1>${notice(p)}${table("API keys", ["Key", "Name", "Scopes", "Status", "Last used", "Created", ""], rows, "No key.")}${create}`,
    );
  });

  pages.post("/api_keys", async (p, form) => {
    const scopes = (form.scopes ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const r = await p.api.send("post", "/v1/api_keys", { name: form.name, ...(scopes.length ? { scopes } : {}) }, form.idempotency_key ?? p.newKey());
    return r.ok ? showSecret(p, "Key created", r.body) : back(p, r.error, r.status);
  });

  pages.post("/api_keys/:id/roll", async (p, form) => {
    const r = await p.api.send("post", `/v1/api_keys/${encodeURIComponent(p.param("id"))}/roll`, {}, form.idempotency_key ?? p.newKey());
    return r.ok ? showSecret(p, "Key rolled", r.body) : back(p, r.error, r.status);
  });

  pages.post("/api_keys/:id/revoke", async (p, form) => {
    const id = p.param("id");
    const r = await p.api.send("post", `/v1/api_keys/${encodeURIComponent(id)}/revoke`, {}, form.idempotency_key ?? p.newKey());
    return r.ok ? done(p, "/api_keys", `Key ${id} revoked`) : back(p, r.error, r.status);
  });
};

function showSecret(p: PageContext, title: string, key: any): Response | Promise<Response> {
  const lead = html`The secret of <code>${key.id}</code>, shown this once: store it now.`;
  return p.render(title, "/api_keys", secretOnce(title, lead, key.secret, link(p.base, "/api_keys", "Back to the keys")));
}

function back(p: PageContext, error: { code: string; message: string }, status: number): Response | Promise<Response> {
  return p.render("API keys", "/api_keys", html`<h1>API keys</h1>${apiError(error)}<p>${link(p.base, "/api_keys", "Back")}</p>`, { status });
}

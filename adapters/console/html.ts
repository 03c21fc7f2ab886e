import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** Markup the pages build: escaped by `html`, so an object's text never becomes markup. */
export type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

export { html, raw };

/** Where the page sits in the navigation, who is looking, and what the shell needs. */
export interface Shell {
  base: string;
  title: string;
  /** The navigation entries this surface has (the portal shows endpoints only). */
  nav: readonly { href: string; label: string }[];
  current: string;
  user: string | null;
  account: string;
  livemode: boolean;
  readOnly: boolean;
}

/**
 * The page: server-rendered, readable without JavaScript, one column on a phone. The only
 * script is the live updater of pages that ask for it (`data-live`): it follows the page's
 * server-sent events and replaces the parts they name.
 */
export function page(shell: Shell, body: Markup, options: { live?: string } = {}): Markup {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${shell.title} · payrail</title>
<style>${raw(CSS)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <span class="brand">payrail</span>
  <span class="mode ${shell.livemode ? "live" : "test"}">${shell.livemode ? "live" : "test mode"}</span>
  <span class="who">${shell.user ? `${shell.user} · ` : ""}<code>${shell.account}</code>${shell.readOnly ? " · read only" : ""}</span>
</header>
<nav aria-label="Sections"><ul>
${shell.nav.map((n) => html`<li><a href="${shell.base}${n.href}"${n.href === shell.current ? raw(' aria-current="page"') : ""}>${n.label}</a></li>`)}
</ul></nav>
<main id="main"${options.live ? html` data-live="${options.live}"` : ""}>
${body}
</main>
${options.live ? html`<script>${raw(LIVE_SCRIPT)}</script>` : ""}
</body>
</html>`;
}

/** A table with a caption; `rows` empty shows `empty`. */
export function table(caption: string, head: readonly string[], rows: readonly (Markup | string)[][], empty = "Nothing here yet."): Markup {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="scroll"><table><caption>${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** A status as a badge whose colour says how it went (text says it too, for screen readers and contrast). */
export function badge(status: string | null | undefined): Markup {
  const s = status ?? "none";
  const tone = GOOD.has(s) ? "good" : BAD.has(s) ? "bad" : "wait";
  return html`<span class="badge ${tone}">${s}</span>`;
}
const GOOD = new Set(["settled", "completed", "confirmed", "succeeded", "filled", "enabled", "available", "paid", "final", "active", "ready", "balanced"]);
const BAD = new Set(["failed", "canceled", "rejected", "reversed", "disabled", "expired", "blocked", "revoked", "completed_with_errors", "drift"]);

export function link(base: string, path: string, text: string): Markup {
  return html`<a href="${base}${path}">${text}</a>`;
}

export function time(iso: string | null | undefined): Markup {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace("T", " ").replace(/\.\d{3}Z$/, "Z")}</time>`;
}

/** A definition list of an object's fields. */
export function fields(entries: readonly [string, Markup | string | number | null | undefined][]): Markup {
  return html`<dl class="fields">${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${v ?? html`<span class="muted">—</span>`}</dd>`)}</dl>`;
}

/** An error of the API, as the page shows it. */
export function apiError(error: { code: string; message: string }): Markup {
  return html`<p class="error" role="alert"><strong>${error.code}</strong>: ${error.message}</p>`;
}

/**
 * A new secret's page: `lead` and the secret, shown this once, in the answer to the form that
 * made it (never in a URL). A form sent again (a reload, a double click) gets the API's replayed
 * answer, which never holds the secret: the page says so instead.
 */
export function secretOnce(title: string, lead: Markup, secret: string | undefined, back: Markup): Markup {
  return secret
    ? html`<h1>${title}</h1><p>${lead}</p><p class="secret" id="secret">${secret}</p><p>${back}</p>`
    : html`<h1>${title}</h1><p class="error" role="alert">This form was already answered, and a secret is shown only in the first answer. If it was not stored, make a new one (rotate or roll again).</p><p>${back}</p>`;
}

/** Older/newer links from a list envelope, keeping the page's filters. */
export function pager(
  base: string,
  path: string,
  list: { has_more: boolean; next_cursor: string | null; previous_cursor: string | null },
  filters: Record<string, string | undefined>,
): Markup {
  const q = (extra: Record<string, string>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filters, ...extra })) if (v) p.set(k, v);
    return `${base}${path}?${p}`;
  };
  return html`<p class="pager">
${list.previous_cursor ? html`<a rel="prev" href="${q({ ending_before: list.previous_cursor })}">← Newer</a>` : ""}
${list.has_more && list.next_cursor ? html`<a rel="next" href="${q({ starting_after: list.next_cursor })}">Older →</a>` : ""}
</p>`;
}

/**
 * A form that calls the API: POST to the console, which sends it with this Idempotency-Key (a
 * form sent twice acts once). `hidden` carries the action's inputs.
 */
export function actionForm(
  action: string,
  label: string,
  idempotencyKey: string,
  hidden: Record<string, string> = {},
  options: { danger?: boolean; fields?: Markup } = {},
): Markup {
  return html`<form method="post" action="${action}" class="action">
<input type="hidden" name="idempotency_key" value="${idempotencyKey}">
${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
${options.fields ?? ""}
<button type="submit"${options.danger ? raw(' class="danger"') : ""}>${label}</button>
</form>`;
}

const CSS = `
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--line:#d0d7de;--accent:#0a58ca;--good:#116329;--bad:#a40e26;--wait:#7d4e00}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);background:var(--bg)}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px;z-index:9}
header{display:flex;flex-wrap:wrap;gap:12px;align-items:center;padding:10px 16px;border-bottom:1px solid var(--line)}
.brand{font-weight:700}.mode{font-size:12px;padding:1px 8px;border-radius:10px;border:1px solid}.mode.test{color:var(--wait)}.mode.live{color:var(--good)}
.who{margin-left:auto;color:var(--muted);font-size:13px}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 14px;margin:0;padding:8px 16px;border-bottom:1px solid var(--line)}
nav a{color:var(--accent);text-decoration:none}nav a[aria-current=page]{font-weight:700;text-decoration:underline}
main{padding:16px;max-width:1200px}h1{font-size:22px;margin:4px 0 12px}h2{font-size:17px;margin:20px 0 8px}
a{color:var(--accent)}a:focus,button:focus,input:focus,select:focus{outline:3px solid #80b3ff;outline-offset:1px}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:14px}caption{text-align:left;color:var(--muted);padding:4px 0}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}th{font-weight:600}
td code,dd code{font-size:12.5px;word-break:break-all}
.badge{display:inline-block;font-size:12px;padding:0 8px;border-radius:10px;border:1px solid}.good{color:var(--good)}.bad{color:var(--bad)}.wait{color:var(--wait)}
.muted,.empty{color:var(--muted)}.error{color:var(--bad);border:1px solid var(--bad);padding:8px;border-radius:6px}
.notice{border:1px solid var(--good);padding:8px;border-radius:6px}.secret{font-family:monospace;background:#f6f8fa;padding:8px;word-break:break-all}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}dt{color:var(--muted)}dd{margin:0}
form.filters,form.action{display:inline-flex;flex-wrap:wrap;gap:8px;align-items:end;margin:0 8px 8px 0}
label{display:flex;flex-direction:column;font-size:13px;color:var(--muted)}
input,select,button{font:inherit;padding:5px 8px;border:1px solid var(--line);border-radius:6px;background:#fff;color:var(--fg)}
button{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer}button.danger{background:var(--bad);border-color:var(--bad)}
.pager{display:flex;gap:16px}.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:12px}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 12px}.card .big{font-size:20px;font-weight:600}
progress{width:100%;height:14px}svg.chart{max-width:100%;height:auto}svg text{font-size:11px;fill:var(--muted)}
@media (max-width:600px){main{padding:10px}th,td{padding:4px}.who{margin-left:0}}
`;

/** Follows the page's event stream (`data-live`): each message names an element id and its new HTML. */
const LIVE_SCRIPT = `
(function(){var m=document.querySelector("main[data-live]");if(!m||!window.EventSource)return;
var s=new EventSource(m.getAttribute("data-live"));
s.addEventListener("replace",function(e){var d=JSON.parse(e.data);var el=document.getElementById(d.id);if(el)el.outerHTML=d.html;});
s.addEventListener("done",function(){s.close();});})();
`;

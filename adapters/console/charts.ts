import { html, raw, type Markup } from "./html";

/** A point of a chart: when (ms since the epoch) and how much. */
export interface Point {
  t: number;
  v: number;
}

const W = 640;
const H = 180;
const PAD = { left: 64, right: 12, top: 12, bottom: 28 };

/**
 * A line chart drawn on the server as SVG: no script, no library, no build step, readable in any
 * browser and printed as it looks. `label` is its accessible name; the first and last points and
 * the range are written beside it for readers who cannot see it.
 */
export function lineChart(points: readonly Point[], label: string, options: { step?: boolean; unit?: string } = {}): Markup {
  if (points.length === 0) return html`<p class="empty">No data to chart yet.</p>`;
  const sorted = [...points].sort((a, b) => a.t - b.t);
  const t0 = sorted[0]!.t;
  const t1 = Math.max(sorted[sorted.length - 1]!.t, t0 + 1);
  let lo = Math.min(...sorted.map((p) => p.v));
  let hi = Math.max(...sorted.map((p) => p.v));
  if (lo === hi) {
    lo -= 1;
    hi += 1;
  }
  const x = (t: number) => PAD.left + ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - (v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const path = sorted
    .map((p, i) => {
      const here = `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`;
      if (i === 0) return `M${here}`;
      return options.step ? `H${x(p.t).toFixed(1)}V${y(p.v).toFixed(1)}` : `L${here}`;
    })
    .join("");
  const unit = options.unit ? ` ${options.unit}` : "";
  const fmt = (v: number) => `${Number(v.toPrecision(6))}${unit}`;
  const day = (t: number) => new Date(t).toISOString().slice(0, 16).replace("T", " ");
  const summary = `${label}: from ${fmt(sorted[0]!.v)} to ${fmt(sorted[sorted.length - 1]!.v)}, between ${fmt(lo)} and ${fmt(hi)}`;
  return html`<figure>
<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}">
<title>${summary}</title>
<line x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}" stroke="#d0d7de"/>
<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${H - PAD.bottom}" stroke="#d0d7de"/>
<text x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end">${fmt(hi)}</text>
<text x="${PAD.left - 6}" y="${H - PAD.bottom}" text-anchor="end">${fmt(lo)}</text>
<text x="${PAD.left}" y="${H - 8}">${day(t0)}</text>
<text x="${W - PAD.right}" y="${H - 8}" text-anchor="end">${day(t1)}</text>
<path d="${raw(path)}" fill="none" stroke="#0a58ca" stroke-width="2"/>
${sorted.length <= 60 ? sorted.map((p) => html`<circle cx="${x(p.t).toFixed(1)}" cy="${y(p.v).toFixed(1)}" r="2.5" fill="#0a58ca"/>`) : ""}
</svg>
<figcaption class="muted">${summary}</figcaption>
</figure>`;
}

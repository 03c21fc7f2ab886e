/**
 * The one table `npm run bench` ends with: every figure of the run, beside the raw floor measured
 * in the same run where it has one, their ratio, and the target it is held to (issue 11). A bench
 * prints its own detail lines as it goes and returns its figures for the table.
 */
export interface Figure {
  /** What is measured, e.g. `single payouts created`. */
  name: string;
  /** Where: `memory`, `pglite`, `postgres`, `embedded` (npm start), or `-`. */
  store: string;
  value: number;
  /** `/s` (more is better) or `ms` / `s` / `MB` (less is better). */
  /** `""`: a count. */
  unit: "/s" | "ms" | "s" | "MB" | "";
  /** The raw floor of the same work measured in the same run, in the same unit. */
  floor?: { value: number; what: string };
  /**
   * What the figure is held to: bounds on `value / floor` (`ratio`) or on the value itself
   * (`value`), as the issue states them.
   */
  target?: { ratio?: Bound; value?: Bound };
}

export interface Bound {
  min?: number;
  max?: number;
}

const fmt = (n: number, unit: string): string => {
  if (!Number.isFinite(n)) return "-";
  const digits = unit === "" ? 0 : unit === "s" ? 1 : n >= 100 ? 0 : n >= 10 ? 1 : 2;
  const suffix = unit === "/s" ? "/s" : unit === "" ? "" : ` ${unit}`;
  return `${n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })}${suffix}`;
};

const bound = (b: Bound, unit: string, ratio: boolean): string => {
  const show = (n: number) => (ratio ? `${n} ×` : fmt(n, unit));
  if (b.min !== undefined && b.max !== undefined) return `${show(b.min)} to ${show(b.max)}`;
  return b.min !== undefined ? `≥ ${show(b.min)}` : `≤ ${show(b.max!)}`;
};

const within = (n: number, b: Bound): boolean => (b.min === undefined || n >= b.min) && (b.max === undefined || n <= b.max);

/** The table as text: figure, store, value, floor, ratio, target, and whether it is met. */
export function formatTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => {
    const ratio = f.floor ? f.value / f.floor.value : NaN;
    const targets: string[] = [];
    let met: boolean | null = null;
    if (f.target?.ratio) {
      targets.push(`${bound(f.target.ratio, f.unit, true)} floor`);
      met = Number.isFinite(ratio) ? within(ratio, f.target.ratio) : null;
    }
    if (f.target?.value) {
      targets.push(bound(f.target.value, f.unit, false));
      const ok = within(f.value, f.target.value);
      met = met === null ? ok : met && ok;
    }
    return [
      f.name,
      f.store,
      fmt(f.value, f.unit),
      f.floor ? `${fmt(f.floor.value, f.unit)} (${f.floor.what})` : "",
      Number.isFinite(ratio) ? `${ratio.toFixed(2)} ×` : "",
      targets.join(", "),
      met === null ? "" : met ? "met" : "MISSED",
    ];
  });
  const head = ["figure", "store", "value", "raw floor, same run", "ratio", "target", ""];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

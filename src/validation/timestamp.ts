const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;
const UNIX_SECONDS = /^(0|[1-9][0-9]{0,11})$/;

/**
 * A date (the start of that UTC day), an ISO 8601 timestamp with `Z` or an offset, or integer
 * Unix seconds (number or digits), as epoch milliseconds; null when it is none of them or names
 * a day that does not exist.
 */
export function parseTimestamp(value: unknown): number | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? value * 1000 : null;
  if (typeof value !== "string") return null;
  if (UNIX_SECONDS.test(value)) return Number(value) * 1000;
  let m = DATE.exec(value);
  if (m) return validDay(+m[1]!, +m[2]!, +m[3]!) ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!) : null;
  m = DATE_TIME.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec = "0", frac = "", zone] = m;
  if (!validDay(+y!, +mo!, +d!) || +h! > 23 || +mi! > 59 || +sec > 59) return null;
  let ms = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +sec, +`${frac}000`.slice(0, 3));
  if (zone !== "Z") {
    const sign = zone!.startsWith("-") ? -1 : 1;
    const [zh, zm] = zone!.slice(1).split(":").map(Number) as [number, number];
    if (zh > 23 || zm > 59) return null;
    ms -= sign * (zh * 60 + zm) * 60_000;
  }
  return ms;
}

function validDay(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** The last time `isoTime` wrote: one operation writes the same moment many times (its `now`). */
let lastMs = Number.NaN;
let lastIso = "";

/** ISO 8601 UTC text of epoch milliseconds, as every response writes timestamps. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

import { CliError } from "./io";

/**
 * `key=value` (the value as text) or `key:=json` (the value as JSON: numbers, booleans, objects),
 * as `-d` of `payrail get|post|delete` and `--override` of `trigger` take them. The key is a
 * path: `metadata.order`, `legs.0.chain` or `metadata[order]`, `legs[0][chain]`.
 */
export interface DataPair {
  /** The key as written (`expand[]`), for query strings. */
  key: string;
  path: string[];
  value: unknown;
}

/** `a.b.0` or `a[b][0]` as its parts. */
export function splitPath(key: string): string[] {
  const parts = key
    .replace(/\[([^\]]*)\]/g, ".$1")
    .split(".")
    .filter((p) => p !== "");
  if (parts.length === 0) throw new CliError(`an empty key in ${JSON.stringify(key)}`, 2);
  const unsafe = parts.find((p) => p === "__proto__" || p === "constructor" || p === "prototype");
  if (unsafe) throw new CliError(`${unsafe} cannot be a key (in ${JSON.stringify(key)})`, 2);
  return parts;
}

/** One `key=value` or `key:=json`; `what` names the option in errors. */
export function parseDataPair(text: string, what: string): DataPair {
  const eq = text.indexOf("=");
  if (eq <= 0) throw new CliError(`${what} takes key=value (text) or key:=json, got ${text}`, 2);
  const rawKey = text.slice(0, eq);
  const rawValue = text.slice(eq + 1);
  if (rawKey.endsWith(":")) {
    try {
      return { key: rawKey.slice(0, -1), path: splitPath(rawKey.slice(0, -1)), value: JSON.parse(rawValue) };
    } catch (e) {
      if (e instanceof CliError) throw e;
      throw new CliError(`${what} ${rawKey}= takes JSON, got ${rawValue}`, 2);
    }
  }
  return { key: rawKey, path: splitPath(rawKey), value: rawValue };
}

/** Sets `value` at `path` in `target`, making objects (or arrays, for numeric parts) on the way. */
export function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node: Record<string, unknown> | unknown[] = target;
  for (let i = 0; i < path.length; i++) {
    const part = path[i]!;
    const key: string | number = Array.isArray(node) && /^\d+$/.test(part) ? Number(part) : part;
    if (i === path.length - 1) {
      (node as Record<string | number, unknown>)[key] = value;
      return;
    }
    const existing = (node as Record<string | number, unknown>)[key];
    if (existing === null || typeof existing !== "object") {
      const fresh: Record<string, unknown> | unknown[] = /^\d+$/.test(path[i + 1]!) ? [] : {};
      (node as Record<string | number, unknown>)[key] = fresh;
      node = fresh;
    } else node = existing as Record<string, unknown> | unknown[];
  }
}

/** Several pairs as one object (a JSON body). */
export function dataObject(pairs: readonly DataPair[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of pairs) setPath(out, p.path, p.value);
  return out;
}

/** Several pairs as a query string (`GET`, `DELETE`): keys as written (`expand[]` may repeat), values as text. */
export function dataQuery(pairs: readonly DataPair[]): string {
  const query = new URLSearchParams();
  for (const p of pairs) query.append(p.key, typeof p.value === "string" ? p.value : JSON.stringify(p.value));
  const text = query.toString();
  return text ? `?${text}` : "";
}

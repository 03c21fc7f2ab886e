import type { StateRange } from "./adapter-state";
import type { Json } from "./storage/json";

/** The longest key of a namespace, in UTF-16 code units (at most 1,536 bytes of UTF-8: an index entry fits). */
export const MAX_STATE_KEY_LENGTH = 512;

const NAMESPACE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether `key` is a key of the adapter-state seam: 1 to 512 code units, no U+0000 (PostgreSQL's
 * text cannot hold it), no unpaired surrogate (UTF-8 cannot encode it). Storage adapters check
 * every key they are given with `assertStateKey`.
 */
export function isStateKey(key: string): boolean {
  return typeof key === "string" && key.length >= 1 && key.length <= MAX_STATE_KEY_LENGTH && !key.includes("\u0000") && !UNPAIRED_SURROGATE.test(key);
}

/** Throws a TypeError unless `key` is a key of the seam (`isStateKey`). */
export function assertStateKey(key: string): void {
  if (!isStateKey(key)) throw new TypeError(`invalid adapter-state key ${JSON.stringify(key)}`);
}

/**
 * Throws a TypeError unless `namespace` is a namespace name: 1 to 64 of `a-z 0-9 . _ -`,
 * starting with a letter or digit. `StorageAdapter.adapterState` calls it.
 */
export function assertStateNamespace(namespace: string): void {
  if (typeof namespace !== "string" || !NAMESPACE.test(namespace)) throw new TypeError(`invalid adapter-state namespace ${JSON.stringify(namespace)}`);
}

/**
 * The order of keys: UTF-8 bytes, which is the order of code points (PostgreSQL's `COLLATE "C"`
 * over UTF-8). JavaScript's `<` compares UTF-16 code units, which differs only where a character
 * above U+FFFF (a surrogate pair) meets one in U+E000–U+FFFF; this corrects that case.
 */
export function compareStateKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A code unit's place in code point order: surrogates (pairs above U+FFFF) after U+E000–U+FFFF. */
const codePointRank = (unit: number) => (unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit);

/**
 * The smallest string after every string starting with `prefix` (in key order), or null when
 * there is none (the prefix is empty, or only U+10FFFF): the exclusive upper bound of a prefix.
 */
export function prefixEnd(prefix: string): string | null {
  let chars = [...prefix];
  while (chars.length) {
    const last = chars[chars.length - 1]!.codePointAt(0)!;
    chars = chars.slice(0, -1);
    if (last < 0x10ffff) {
      // the next code point, stepping over the surrogates (no character of their own)
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return chars.join("") + String.fromCodePoint(next);
    }
  }
  return null;
}

/**
 * A range as two bounds for a storage adapter: keys `k` with `lower <= k` (when not null) and
 * `k < upper` (when not null), in key order. `empty` when no key can be in it.
 */
export function stateRangeBounds(range: StateRange): { lower: string | null; upper: string | null; empty: boolean } {
  let lower: string | null = range.from ?? null;
  let upper: string | null = range.to ?? null;
  if (range.prefix !== undefined && range.prefix !== "") {
    if (lower === null || compareStateKeys(range.prefix, lower) > 0) lower = range.prefix;
    const end = prefixEnd(range.prefix);
    if (end !== null && (upper === null || compareStateKeys(end, upper) < 0)) upper = end;
  }
  const empty = lower !== null && upper !== null && compareStateKeys(lower, upper) >= 0;
  return { lower, upper, empty };
}

/** Whether `key` is in `range` (`StateRange`). */
export function inStateRange(key: string, range: StateRange): boolean {
  return (
    (range.prefix === undefined || key.startsWith(range.prefix)) &&
    (range.from === undefined || compareStateKeys(key, range.from) >= 0) &&
    (range.to === undefined || compareStateKeys(key, range.to) < 0)
  );
}

/** Digits of `encodeSortableUint`: enough for every unsigned 64-bit integer. */
export const SORTABLE_UINT_DIGITS = 20;
const MAX_SORTABLE = 2n ** 64n - 1n;

/**
 * A non-negative integer (up to 2^64 − 1) as 20 decimal digits, zero-padded, so keys holding
 * numbers sort as the numbers do: `encodeSortableUint(42)` is `"00000000000000000042"`. Put it in
 * an index key (`by-height/00000000000000001234/<id>`) and a `list` from one encoded bound to
 * another reads a numeric range in order. In SQL: `lpad(n::text, 20, '0')`.
 */
export function encodeSortableUint(n: number | bigint): string {
  if (typeof n === "number" && !Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`);
  const big = BigInt(n);
  if (big < 0n || big > MAX_SORTABLE) throw new RangeError(`out of the sortable range 0 to 2^64 - 1: ${n}`);
  return big.toString().padStart(SORTABLE_UINT_DIGITS, "0");
}

/** The integer `encodeSortableUint` encoded (throws on anything else). */
export function decodeSortableUint(text: string): bigint {
  if (text.length !== SORTABLE_UINT_DIGITS || !/^[0-9]+$/.test(text)) throw new TypeError(`not a sortable integer: ${JSON.stringify(text)}`);
  return BigInt(text);
}

/** A counter's value as `AdapterStateTx.increment` stores it (`undefined`, a missing counter: 0). */
export function decodeCounter(value: Json | undefined): bigint {
  if (value === undefined) return 0n;
  if (typeof value !== "string" || !/^-?[0-9]+$/.test(value)) throw new TypeError(`not a counter: ${JSON.stringify(value)}`);
  return BigInt(value);
}

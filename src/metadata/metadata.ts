import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";
import { o } from "../api/response-schema";
import { Schema, invalid, type JsonSchema } from "../validation/base-schema";
import { badTextReason } from "../validation/scalar-schemas";

/**
 * `metadata` (docs/decisions.md §11, Stripe's rules): a client's own key-value pairs on every object
 * it creates, returned on the object and in its events, searchable (`metadata[key]:value`), kept
 * in reports. Up to 50 keys of up to 40 characters, string values of up to 500.
 */
export type Metadata = Record<string, string>;

export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;
/** Keys are any text but square brackets (they delimit the key in `metadata[key]`) and no empty key. */
const KEY = /^[^[\]]+$/;

/**
 * The request form of `metadata`: an object of strings. A value of `""` means "no value": create
 * does not store it, update removes the key (`applyMetadata`). Each failure names the key
 * (`metadata[order_id]`), or `metadata` itself for the object's shape and its count of keys.
 */
export class MetadataSchema extends Schema<Metadata> {
  parse(value: unknown, path: string): Result<Metadata, ApiError> {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return invalid(path, `${path} must be an object of strings`);
    }
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > METADATA_MAX_KEYS) return invalid(path, `${path} has at most ${METADATA_MAX_KEYS} keys; this one has ${entries.length}`);
    const out: [string, string][] = [];
    for (const [key, v] of entries) {
      const at = `${path}[${key}]`;
      if (!KEY.test(key)) return invalid(at, `${path} keys must be non-empty and must not contain [ or ]`);
      if (key.length > METADATA_MAX_KEY_LENGTH) return invalid(at, `${path} keys have at most ${METADATA_MAX_KEY_LENGTH} characters`);
      const badKey = badTextReason(key);
      if (badKey) return invalid(at, `${path} keys ${badKey}`);
      if (typeof v !== "string") return invalid(at, `${at} must be a string (metadata values are strings)`);
      if (v.length > METADATA_MAX_VALUE_LENGTH) return invalid(at, `${at} must have at most ${METADATA_MAX_VALUE_LENGTH} characters`);
      const bad = badTextReason(v);
      if (bad) return invalid(at, `${at} ${bad}`);
      out.push([key, v]);
    }
    // fromEntries defines own properties: a key such as __proto__ is kept as data, never a prototype
    return ok(Object.fromEntries(out));
  }

  protected baseJsonSchema(): JsonSchema {
    return {
      type: "object",
      maxProperties: METADATA_MAX_KEYS,
      propertyNames: { minLength: 1, maxLength: METADATA_MAX_KEY_LENGTH, pattern: KEY.source },
      additionalProperties: { type: "string", maxLength: METADATA_MAX_VALUE_LENGTH },
    };
  }
}

/** `metadata` of a create or update request. */
export const metadataParam = () =>
  new MetadataSchema().describe(
    `Your own key-value pairs (up to ${METADATA_MAX_KEYS} keys of up to ${METADATA_MAX_KEY_LENGTH} characters, string values of up to ${METADATA_MAX_VALUE_LENGTH}); "" unsets a key`,
  );

/** `metadata` on a response object: always present, `{}` when none. */
export const metadataObject = o.record(o.string({ description: "A value you set" }), {
  description: "Your own key-value pairs, as you set them ({} when none)",
});

/**
 * `metadata` as an object answers it: `{}` when none, keys in one order (UTF-16 code units) on
 * every storage, since PostgreSQL's jsonb keeps keys in an order of its own.
 */
export function presentMetadata(metadata: Metadata | undefined): Metadata {
  if (!metadata) return {};
  return Object.fromEntries(Object.entries(metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The metadata a create stores: what was given, less the keys whose value is `""`. */
export function newMetadata(given: Metadata | undefined): Metadata {
  return Object.fromEntries(Object.entries(given ?? {}).filter(([, value]) => value !== ""));
}

/**
 * An update of metadata (Stripe's): given keys are set, a key given as `""` is removed, others are
 * kept. More than 50 keys after it is `parameter_invalid` (`param: "metadata"`) and changes nothing.
 */
export function applyMetadata(current: Metadata | undefined, changes: Metadata, param = "metadata"): Result<Metadata, ApiError> {
  const out = new Map(Object.entries(current ?? {}));
  for (const [key, value] of Object.entries(changes)) {
    if (value === "") out.delete(key);
    else out.set(key, value);
  }
  const count = out.size;
  if (count > METADATA_MAX_KEYS) {
    return fail("parameter_invalid", `metadata would have ${count} keys; at most ${METADATA_MAX_KEYS} are kept`, { param });
  }
  return ok(Object.fromEntries(out));
}

/** A list search on metadata: `metadata[key]:value` matches objects whose `key` is exactly `value`. */
export interface MetadataMatch {
  key: string;
  value: string;
}

const SEARCH = /^metadata\[([^[\]]{1,40})\]:(.{0,500})$/s;

/** The metadata match a `search` text asks for, or null when it is a plain search (a reference prefix or an id). */
export function metadataSearch(search: string): MetadataMatch | null {
  const m = SEARCH.exec(search);
  return m ? { key: m[1]!, value: m[2]! } : null;
}

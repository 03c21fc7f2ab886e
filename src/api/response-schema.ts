import type { JsonSchema } from "../validation/schema";
import type { Json } from "../ports/storage";

/**
 * Response schemas: what an API object looks like, written once. The presenter's return type is
 * derived from the schema (`Out<typeof schema>`), so a presenter that answers a field the schema
 * does not describe (or leaves one out) does not compile, and the OpenAPI document is built from
 * the same schema, so the document and the answers cannot drift apart. The HTTP tests validate
 * every answer against the document as well.
 */
export interface ResponseSchema<T> {
  /** Phantom: the TypeScript type of a value of the schema. */
  readonly __type?: T;
  /** The JSON Schema (OpenAPI 3.1); named schemas are `$ref`s to `#/components/schemas/<name>`. */
  readonly json: JsonSchema;
  /** Set by `o.optional`: the property may be absent. */
  readonly optional?: true;
}

/** The TypeScript type of a response schema. */
export type Out<S> = S extends ResponseSchema<infer T> ? T : never;

/** A named schema: a component of the document, referred to by `$ref`. */
export interface NamedSchema<T> extends ResponseSchema<T> {
  readonly name: string;
  /** The component's own JSON Schema. */
  readonly definition: JsonSchema;
  /** Named schemas the definition refers to, for the document's components. */
  readonly refs: readonly NamedSchema<unknown>[];
}

type Shape = Record<string, ResponseSchema<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends { optional: true } ? K : never }[keyof S];
type Flat<T> = { [K in keyof T]: T[K] } & {};
type ObjectOut<S extends Shape> = Flat<{ [K in Exclude<keyof S, OptionalKeys<S>>]: Out<S[K]> } & { [K in OptionalKeys<S>]?: Out<S[K]> }>;

interface Doc {
  description?: string;
  example?: unknown;
}

function schema<T>(json: JsonSchema, doc: Doc = {}, refs: readonly NamedSchema<unknown>[] = []): ResponseSchema<T> & { refs: readonly NamedSchema<unknown>[] } {
  const out: JsonSchema = { ...json };
  if (doc.description) out.description = doc.description;
  if (doc.example !== undefined) out.examples = [doc.example];
  return { json: out, refs };
}

function refsOf(...schemas: ResponseSchema<unknown>[]): NamedSchema<unknown>[] {
  const out: NamedSchema<unknown>[] = [];
  for (const s of schemas) {
    if ("definition" in s) out.push(s as NamedSchema<unknown>);
    else out.push(...((s as { refs?: NamedSchema<unknown>[] }).refs ?? []));
  }
  return out;
}

const ID_CHARS = "[0-9a-hjkmnp-tv-z]{26}";
const DECIMAL = "^(0|[1-9][0-9]*)(\\.[0-9]+)?$";
const SIGNED_DECIMAL = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$";

/** The builders. */
export const o = {
  string: (doc: Doc & { pattern?: string; format?: string; minLength?: number } = {}) => {
    const { pattern, format, minLength, ...rest } = doc;
    const json: JsonSchema = { type: "string" };
    if (pattern) json.pattern = pattern;
    if (format) json.format = format;
    if (minLength !== undefined) json.minLength = minLength;
    return schema<string>(json, rest);
  },
  /** An id with its prefix (docs/decisions.md §1): `po_` + 26 lowercase base32 characters. */
  id: (prefix: string, doc: Doc = {}) =>
    schema<string>({ type: "string", pattern: `^${prefix}_${ID_CHARS}$` }, { example: `${prefix}_01jd5x3kq8b7m2c9v4n6p0r1s2`, ...doc }),
  literal: <T extends string>(value: T, doc: Doc = {}) => schema<T>({ type: "string", enum: [value] }, doc),
  enum: <T extends string>(values: readonly T[], doc: Doc = {}) => schema<T>({ type: "string", enum: [...values] }, { example: values[0], ...doc }),
  integer: (doc: Doc & { minimum?: number } = {}) => {
    const { minimum, ...rest } = doc;
    return schema<number>(minimum === undefined ? { type: "integer" } : { type: "integer", minimum }, rest);
  },
  boolean: (doc: Doc = {}) => schema<boolean>({ type: "boolean" }, doc),
  /** Always `true` (`deleted`, `valid`). */
  true: (doc: Doc = {}) => schema<true>({ type: "boolean", enum: [true] }, doc),
  /** A decimal string in its shortest exact form (docs/decisions.md §1). */
  decimal: (doc: Doc = {}) => schema<string>({ type: "string", pattern: DECIMAL }, { example: "10.25", ...doc }),
  /** A signed decimal string (ledger entry amounts). */
  signedDecimal: (doc: Doc = {}) => schema<string>({ type: "string", pattern: SIGNED_DECIMAL }, { example: "-10.25", ...doc }),
  /** An ISO 8601 UTC timestamp. */
  time: (doc: Doc = {}) => schema<string>({ type: "string", format: "date-time" }, { example: "2026-01-15T09:30:00.000Z", ...doc }),
  /** Any JSON value (an audit record's values before and after a change). */
  json: (doc: Doc = {}) => schema<Json>({}, doc),
  /** Any JSON object (an event's `data.object`: its shape depends on the event type). */
  anyObject: (doc: Doc = {}) => schema<Record<string, unknown>>({ type: "object", additionalProperties: true }, doc),
  nullable: <T>(inner: ResponseSchema<T>, doc: Doc = {}): ResponseSchema<T | null> => {
    const j = inner.json;
    if (typeof j.type === "string" && !("$ref" in j)) {
      const json: JsonSchema = { ...j, type: [j.type, "null"] };
      if (Array.isArray(j.enum)) json.enum = [...j.enum, null];
      if (doc.description) json.description = doc.description;
      return { json, refs: refsOf(inner) } as ResponseSchema<T | null>;
    }
    return schema<T | null>({ anyOf: [j, { type: "null" }] }, doc, refsOf(inner));
  },
  optional: <T>(inner: ResponseSchema<T>): ResponseSchema<T> & { optional: true } =>
    ({ ...inner, refs: refsOf(inner), optional: true }) as ResponseSchema<T> & { optional: true },
  array: <T>(item: ResponseSchema<T>, doc: Doc = {}) => schema<T[]>({ type: "array", items: item.json }, doc, refsOf(item)),
  /** An object keyed by names (chains, venues) with values of `value`. */
  record: <T>(value: ResponseSchema<T>, doc: Doc & { keys?: readonly string[] } = {}) => {
    const { keys, ...rest } = doc;
    const json: JsonSchema = { type: "object", additionalProperties: value.json };
    if (keys) json.propertyNames = { enum: [...keys] };
    return schema<Record<string, T>>(json, rest, refsOf(value));
  },
  /** Either schema (an id or, expanded, its object; an empty list is both). */
  anyOf: <A, B>(a: ResponseSchema<A>, b: ResponseSchema<B>, doc: Doc = {}) => schema<A | B>({ anyOf: [a.json, b.json] }, doc, refsOf(a, b)),
  object: <S extends Shape>(shape: S, doc: Doc = {}) => {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, value] of Object.entries(shape)) {
      properties[key] = value.json;
      if (!value.optional) required.push(key);
    }
    const json: JsonSchema = { type: "object", properties, additionalProperties: false };
    if (required.length) json.required = required;
    return schema<ObjectOut<S>>(json, doc, refsOf(...Object.values(shape)));
  },
  /** Names a schema: a component of the document that other schemas and responses `$ref`. */
  named: <T>(name: string, inner: ResponseSchema<T>): NamedSchema<T> => ({
    name,
    definition: inner.json,
    refs: refsOf(inner),
    json: { $ref: `#/components/schemas/${name}` },
  }),
};

/** Every named schema `root` reaches (itself included), each once. */
export function reachable(roots: readonly NamedSchema<unknown>[]): Map<string, NamedSchema<unknown>> {
  const out = new Map<string, NamedSchema<unknown>>();
  const visit = (s: NamedSchema<unknown>): void => {
    const known = out.get(s.name);
    if (known) {
      if (known !== s) throw new Error(`Two response schemas are named ${s.name}`);
      return;
    }
    out.set(s.name, s);
    for (const r of s.refs) visit(r);
  };
  for (const r of roots) visit(r);
  return out;
}

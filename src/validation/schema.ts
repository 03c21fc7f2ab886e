import { err, ok, type Result } from "neverthrow";
import { ApiError, fail, type ErrorCode } from "../errors";
import type { AssetDefinition, AssetRegistry, ChainDefinition } from "../money/assets";
import { decimal, formatDecimal, isDecimalString } from "../money/decimal";
import { parseTimestamp } from "./timestamp";

/**
 * Request schemas: the single source of validation, TypeScript types (`Infer`) and the OpenAPI
 * 3.1 document (`jsonSchema`). Every failure is an error of the catalogue naming the parameter
 * path, e.g. `legs[3].amount`.
 */
export interface ParseContext {
  readonly assets: AssetRegistry;
  /** The engine's event types and scopes, as its modules declared them (`EngineCatalogue`). */
  readonly catalogue: CatalogueTerms;
}

/** The terms of the engine's catalogue a request may name. */
export interface CatalogueTerms {
  readonly eventTypes: readonly string[];
  readonly scopes: readonly string[];
  isEventType(value: unknown): boolean;
  isScope(value: unknown): boolean;
}

export type JsonSchema = Record<string, unknown>;

/**
 * A schema of values of type `T` (what `parse` yields) written as `I` (what a client sends: an
 * asset code for an asset, a date text for a timestamp). `Infer` is the first, `Input` the second.
 */
export abstract class Schema<T, I = T> {
  /** Phantom: the written form, for `Input`. */
  declare readonly __input?: I;
  /** Set by `optional()`: an absent or undefined value is accepted as `undefined`. */
  readonly isOptional: boolean = false;
  protected description: string | undefined;

  abstract parse(value: unknown, path: string, ctx: ParseContext): Result<T, ApiError>;
  protected abstract baseJsonSchema(): JsonSchema;

  jsonSchema(): JsonSchema {
    const schema = this.baseJsonSchema();
    return this.description ? { ...schema, description: this.description } : schema;
  }

  optional(): OptionalSchema<T, I> {
    return new OptionalSchema(this);
  }

  describe(text: string): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    Object.assign(copy, this);
    copy.description = text;
    return copy;
  }
}

/** What a schema's `parse` yields. */
export type Infer<S> = S extends Schema<infer T, any> ? T : never;
/** What a client writes for a schema: the typed input of the host API and of the HTTP binding. */
export type Input<S> = S extends Schema<any, infer I> ? I : never;

export class OptionalSchema<T, I = T> extends Schema<T | undefined, I | undefined> {
  override readonly isOptional = true;
  constructor(readonly inner: Schema<T, I>) {
    super();
  }
  parse(value: unknown, path: string, ctx: ParseContext): Result<T | undefined, ApiError> {
    return value === undefined ? ok(undefined) : this.inner.parse(value, path, ctx);
  }
  protected baseJsonSchema(): JsonSchema {
    return this.inner.jsonSchema();
  }
}

function invalid<T>(path: string, message: string, code: ErrorCode = "parameter_invalid"): Result<T, ApiError> {
  return fail(code, message, { param: path });
}

/**
 * Text storage cannot hold: NUL (PostgreSQL refuses it in text) and UTF-16 surrogates without
 * their pair (not Unicode, so not UTF-8 either). The HTTP binding refuses both anywhere in a
 * request (`parseRequest` in `adapters/http/middleware.ts`); schemas refuse them for hosts calling the engine.
 */
export function badTextReason(value: string): string | null {
  if (value.includes("\u0000")) return "must not contain NUL characters";
  if (LONE_SURROGATE.test(value)) return "must not contain unpaired UTF-16 surrogates";
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export class StringSchema extends Schema<string> {
  constructor(readonly opts: { min?: number; max?: number; pattern?: RegExp; format?: string; code?: ErrorCode } = {}) {
    super();
  }
  parse(value: unknown, path: string): Result<string, ApiError> {
    if (typeof value !== "string") return invalid(path, `${path} must be a string`);
    const { min = 0, max, pattern } = this.opts;
    const bad = badTextReason(value);
    if (bad) return invalid(path, `${path} ${bad}`);
    if (value.length < min) return invalid(path, `${path} must have at least ${min} characters`);
    if (max !== undefined && value.length > max) return invalid(path, `${path} must have at most ${max} characters`, this.opts.code);
    if (pattern && !pattern.test(value)) return invalid(path, `${path} is not in the expected format`, this.opts.code);
    return ok(value);
  }
  protected baseJsonSchema(): JsonSchema {
    const s: JsonSchema = { type: "string" };
    if (this.opts.min) s.minLength = this.opts.min;
    if (this.opts.max !== undefined) s.maxLength = this.opts.max;
    if (this.opts.pattern) s.pattern = this.opts.pattern.source;
    if (this.opts.format) s.format = this.opts.format;
    return s;
  }
}

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;

export class IntegerSchema extends Schema<number> {
  constructor(readonly opts: { min?: number; max?: number; coerce?: boolean } = {}) {
    super();
  }
  parse(value: unknown, path: string): Result<number, ApiError> {
    let n: number | undefined;
    if (typeof value === "number" && Number.isSafeInteger(value)) n = value;
    else if (this.opts.coerce && typeof value === "string" && INTEGER_TEXT.test(value)) n = Number(value);
    if (n === undefined || !Number.isSafeInteger(n)) return invalid(path, `${path} must be an integer`);
    if (this.opts.min !== undefined && n < this.opts.min) return invalid(path, `${path} must be at least ${this.opts.min}`);
    if (this.opts.max !== undefined && n > this.opts.max) return invalid(path, `${path} must be at most ${this.opts.max}`);
    return ok(n);
  }
  protected baseJsonSchema(): JsonSchema {
    const s: JsonSchema = { type: "integer" };
    if (this.opts.min !== undefined) s.minimum = this.opts.min;
    if (this.opts.max !== undefined) s.maximum = this.opts.max;
    return s;
  }
}

export class BooleanSchema extends Schema<boolean> {
  constructor(readonly opts: { coerce?: boolean } = {}) {
    super();
  }
  parse(value: unknown, path: string): Result<boolean, ApiError> {
    if (typeof value === "boolean") return ok(value);
    if (this.opts.coerce && (value === "true" || value === "false" || value === "1" || value === "0")) {
      return ok(value === "true" || value === "1");
    }
    return invalid(path, `${path} must be a boolean`);
  }
  protected baseJsonSchema(): JsonSchema {
    return { type: "boolean" };
  }
}

export class EnumSchema<T extends string> extends Schema<T> {
  constructor(readonly values: readonly T[]) {
    super();
  }
  parse(value: unknown, path: string): Result<T, ApiError> {
    return typeof value === "string" && (this.values as readonly string[]).includes(value)
      ? ok(value as T)
      : invalid(path, `${path} must be one of ${this.values.join(", ")}`);
  }
  protected baseJsonSchema(): JsonSchema {
    return { type: "string", enum: [...this.values] };
  }
}

/**
 * A decimal string of DECISIONS.md §1; `amount_invalid` for amounts, `parameter_invalid` else.
 * Yields the shortest exact form ("0.0100" → "0.01"), so a value echoed back in a response is
 * written the way every response writes decimals.
 */
export class DecimalSchema extends Schema<string> {
  constructor(readonly code: "amount_invalid" | "parameter_invalid") {
    super();
  }
  parse(value: unknown, path: string): Result<string, ApiError> {
    return isDecimalString(value)
      ? ok(formatDecimal(decimal(value)))
      : invalid(path, `${path} must be a decimal string such as "10.25" (no sign, exponent or spaces)`, this.code);
  }
  protected baseJsonSchema(): JsonSchema {
    return { type: "string", pattern: "^(0|[1-9][0-9]*)(\\.[0-9]+)?$" };
  }
}

export class AssetSchema extends Schema<AssetDefinition, string> {
  parse(value: unknown, path: string, ctx: ParseContext): Result<AssetDefinition, ApiError> {
    if (typeof value !== "string") return invalid(path, `${path} must be an asset code such as "USDC"`);
    return ctx.assets.asset(value, path);
  }
  protected baseJsonSchema(): JsonSchema {
    return { $ref: "#/components/schemas/AssetCode" };
  }
}

/** An event type of the engine's catalogue (the document's `EventType`); `withAll` also takes `*`. */
export class EventTypeSchema extends Schema<string> {
  constructor(readonly withAll = false) {
    super();
  }
  parse(value: unknown, path: string, ctx: ParseContext): Result<string, ApiError> {
    if (ctx.catalogue.isEventType(value) || (this.withAll && value === "*")) return ok(value as string);
    return invalid(path, `${path} must be one of ${[...ctx.catalogue.eventTypes, ...(this.withAll ? ["*"] : [])].join(", ")}`);
  }
  protected baseJsonSchema(): JsonSchema {
    const type = { $ref: "#/components/schemas/EventType" };
    return this.withAll ? { anyOf: [type, { type: "string", const: "*" }] } : type;
  }
}

/** A scope of the engine's catalogue (the document's `Scope`). */
export class ScopeSchema extends Schema<string> {
  parse(value: unknown, path: string, ctx: ParseContext): Result<string, ApiError> {
    if (ctx.catalogue.isScope(value)) return ok(value as string);
    return invalid(path, `${path} must be one of ${ctx.catalogue.scopes.join(", ")}`);
  }
  protected baseJsonSchema(): JsonSchema {
    return { $ref: "#/components/schemas/Scope" };
  }
}

export class ChainSchema extends Schema<ChainDefinition, string> {
  parse(value: unknown, path: string, ctx: ParseContext): Result<ChainDefinition, ApiError> {
    if (typeof value !== "string") return invalid(path, `${path} must be a chain name such as "ethereum"`);
    return ctx.assets.knownChain(value, path);
  }
  protected baseJsonSchema(): JsonSchema {
    return { $ref: "#/components/schemas/ChainName" };
  }
}

/** What `parseTimestamp` reads, as a pattern for the document: a date, a timestamp or Unix seconds. */
const TIMESTAMP_TEXT =
  "^([0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?|0|[1-9][0-9]{0,11})$";

/** A date (UTC day) or timestamp: ISO 8601 text or integer Unix seconds; yields epoch ms. */
export class TimestampSchema extends Schema<number, string | number> {
  parse(value: unknown, path: string): Result<number, ApiError> {
    const ms = parseTimestamp(value);
    return ms === null
      ? invalid(path, `${path} must be an ISO 8601 date or timestamp, or Unix seconds`)
      : ok(ms);
  }
  protected baseJsonSchema(): JsonSchema {
    return {
      anyOf: [
        { type: "string", pattern: TIMESTAMP_TEXT, examples: ["2026-01-15", "2026-01-15T09:30:00Z", "1768469400"] },
        { type: "integer", minimum: 0, description: "Unix seconds" },
      ],
    };
  }
}

export class ArraySchema<T, I = T> extends Schema<T[], I[]> {
  constructor(
    readonly item: Schema<T, I>,
    readonly opts: { min?: number; max?: number; tooLarge?: ErrorCode } = {},
  ) {
    super();
  }
  parse(value: unknown, path: string, ctx: ParseContext): Result<T[], ApiError> {
    if (!Array.isArray(value)) return invalid(path, `${path} must be an array`);
    if (this.opts.min !== undefined && value.length < this.opts.min) {
      return invalid(path, `${path} must have at least ${this.opts.min} items`);
    }
    if (this.opts.max !== undefined && value.length > this.opts.max) {
      return invalid(path, `${path} must have at most ${this.opts.max} items`, this.opts.tooLarge);
    }
    const out: T[] = [];
    for (let i = 0; i < value.length; i++) {
      const r = this.item.parse(value[i], `${path}[${i}]`, ctx);
      if (r.isErr()) return err(r.error);
      out.push(r.value);
    }
    return ok(out);
  }
  protected baseJsonSchema(): JsonSchema {
    const s: JsonSchema = { type: "array", items: this.item.jsonSchema() };
    if (this.opts.min !== undefined) s.minItems = this.opts.min;
    if (this.opts.max !== undefined) s.maxItems = this.opts.max;
    return s;
  }
}

/** At most this many `expand[]` paths per request (Stripe's limit is alike). */
export const MAX_EXPAND = 10;

/**
 * `expand[]`: paths of referenced ids a response replaces with their objects. One path
 * (`expand=x`) or several (`expand[]=x`, `expand[0]=x`, which the HTTP binding reads alike),
 * each one of `paths`; yields them in the order given, without repeats.
 */
export class ExpandSchema<T extends string> extends Schema<T[], T | T[]> {
  constructor(readonly paths: readonly T[]) {
    super();
  }
  parse(value: unknown, path: string): Result<T[], ApiError> {
    const list: unknown[] | null = typeof value === "string" ? [value] : Array.isArray(value) ? value : null;
    if (!list) return invalid(path, `${path} must be a path or a list of paths`);
    if (list.length > MAX_EXPAND) return invalid(path, `${path} takes at most ${MAX_EXPAND} paths`);
    const out: T[] = [];
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      if (typeof item !== "string" || !(this.paths as readonly string[]).includes(item)) {
        return invalid(`${path}[${i}]`, `${path}[${i}] cannot be expanded here; it takes ${this.paths.join(", ")}`);
      }
      if (!out.includes(item as T)) out.push(item as T);
    }
    return ok(out);
  }
  protected baseJsonSchema(): JsonSchema {
    return { type: "array", items: { type: "string", enum: [...this.paths] }, maxItems: MAX_EXPAND };
  }
}

export class RecordSchema<T, I = T> extends Schema<Record<string, T>, Record<string, I>> {
  constructor(
    readonly key: Schema<string>,
    readonly value: Schema<T, I>,
  ) {
    super();
  }
  parse(value: unknown, path: string, ctx: ParseContext): Result<Record<string, T>, ApiError> {
    if (!isPlainObject(value)) return invalid(path, `${path} must be an object`);
    const out: Record<string, T> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = this.key.parse(k, `${path}.${k}`, ctx);
      if (key.isErr()) return err(key.error);
      const r = this.value.parse(v, `${path}.${k}`, ctx);
      if (r.isErr()) return err(r.error);
      out[k] = r.value;
    }
    return ok(out);
  }
  protected baseJsonSchema(): JsonSchema {
    return { type: "object", additionalProperties: this.value.jsonSchema() };
  }
}

type Shape = Record<string, Schema<unknown, unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: undefined extends Infer<S[K]> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
type Flat<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<S extends Shape> = Flat<
  { [K in RequiredKeys<S>]: Infer<S[K]> } & {
    [K in OptionalKeys<S>]?: Infer<S[K]>;
  }
>;
/** The written form of an object schema: optional fields may be left out. */
export type InputOf<S extends Shape> = Flat<
  { [K in RequiredKeys<S>]: Input<S[K]> } & {
    [K in OptionalKeys<S>]?: Input<S[K]>;
  }
>;

export class ObjectSchema<S extends Shape> extends Schema<ObjectOf<S>, InputOf<S>> {
  constructor(readonly shape: S) {
    super();
  }
  parse(value: unknown, path: string, ctx: ParseContext): Result<ObjectOf<S>, ApiError> {
    const prefix = path ? `${path}.` : "";
    if (!isPlainObject(value)) return invalid(path || "body", `${path || "The request body"} must be an object`);
    for (const key of Object.keys(value)) {
      if (!(key in this.shape)) return invalid(prefix + key, `Received unknown parameter: ${prefix + key}`);
    }
    const out: Record<string, unknown> = {};
    for (const [key, schema] of Object.entries(this.shape)) {
      const field = value[key];
      if ((field === undefined || field === null) && !schema.isOptional) {
        return fail("parameter_missing", `Missing required parameter: ${prefix + key}`, { param: prefix + key });
      }
      const r = schema.parse(field === null ? undefined : field, prefix + key, ctx);
      if (r.isErr()) return err(r.error);
      if (r.value !== undefined) out[key] = r.value;
    }
    return ok(out as ObjectOf<S>);
  }
  protected baseJsonSchema(): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, schema] of Object.entries(this.shape)) {
      properties[key] = schema.jsonSchema();
      if (!schema.isOptional) required.push(key);
    }
    const s: JsonSchema = { type: "object", properties, additionalProperties: false };
    if (required.length) s.required = required;
    return s;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema builders. */
export const s = {
  /** Text; `code` is the error of a wrong length or format (default `parameter_invalid`). */
  string: (opts?: { min?: number; max?: number; pattern?: RegExp; format?: string; code?: ErrorCode }) => new StringSchema(opts),
  integer: (opts?: { min?: number; max?: number; coerce?: boolean }) => new IntegerSchema(opts),
  boolean: (opts?: { coerce?: boolean }) => new BooleanSchema(opts),
  enum: <T extends string>(values: readonly T[]) => new EnumSchema(values),
  /** An amount: format checked here (`amount_invalid`), precision by the service with the asset. */
  amount: () => new DecimalSchema("amount_invalid"),
  /** A non-amount decimal such as a rate or a fraction. */
  decimal: () => new DecimalSchema("parameter_invalid"),
  asset: () => new AssetSchema(),
  chain: () => new ChainSchema(),
  /** An event type of the engine's catalogue; `{ withAll: true }` also takes `*`. */
  eventType: (opts?: { withAll?: boolean }) => new EventTypeSchema(opts?.withAll ?? false),
  scope: () => new ScopeSchema(),
  timestamp: () => new TimestampSchema(),
  array: <T, I>(item: Schema<T, I>, opts?: { min?: number; max?: number; tooLarge?: ErrorCode }) => new ArraySchema(item, opts),
  /** `expand[]` taking these paths (see `ExpandSchema`). */
  expand: <T extends string>(paths: readonly T[]) => new ExpandSchema(paths),
  record: <T, I>(key: Schema<string>, value: Schema<T, I>) => new RecordSchema(key, value),
  object: <S extends Shape>(shape: S) => new ObjectSchema(shape),
};

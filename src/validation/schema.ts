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
}

export type JsonSchema = Record<string, unknown>;

export abstract class Schema<T> {
  /** Set by `optional()`: an absent or undefined value is accepted as `undefined`. */
  readonly isOptional: boolean = false;
  protected description: string | undefined;

  abstract parse(value: unknown, path: string, ctx: ParseContext): Result<T, ApiError>;
  protected abstract baseJsonSchema(): JsonSchema;

  jsonSchema(): JsonSchema {
    const schema = this.baseJsonSchema();
    return this.description ? { ...schema, description: this.description } : schema;
  }

  optional(): Schema<T | undefined> {
    return new OptionalSchema(this);
  }

  describe(text: string): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    Object.assign(copy, this);
    copy.description = text;
    return copy;
  }
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

export class OptionalSchema<T> extends Schema<T | undefined> {
  override readonly isOptional = true;
  constructor(readonly inner: Schema<T>) {
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

export class StringSchema extends Schema<string> {
  constructor(readonly opts: { min?: number; max?: number; pattern?: RegExp; format?: string } = {}) {
    super();
  }
  parse(value: unknown, path: string): Result<string, ApiError> {
    if (typeof value !== "string") return invalid(path, `${path} must be a string`);
    const { min = 0, max, pattern } = this.opts;
    if (value.length < min) return invalid(path, `${path} must have at least ${min} characters`);
    if (max !== undefined && value.length > max) return invalid(path, `${path} must have at most ${max} characters`);
    if (pattern && !pattern.test(value)) return invalid(path, `${path} is not in the expected format`);
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

export class AssetSchema extends Schema<AssetDefinition> {
  parse(value: unknown, path: string, ctx: ParseContext): Result<AssetDefinition, ApiError> {
    if (typeof value !== "string") return invalid(path, `${path} must be an asset code such as "USDC"`);
    return ctx.assets.asset(value, path);
  }
  protected baseJsonSchema(): JsonSchema {
    return { type: "string", description: "Asset code, e.g. USDC" };
  }
}

export class ChainSchema extends Schema<ChainDefinition> {
  parse(value: unknown, path: string, ctx: ParseContext): Result<ChainDefinition, ApiError> {
    if (typeof value !== "string") return invalid(path, `${path} must be a chain name such as "ethereum"`);
    return ctx.assets.knownChain(value, path);
  }
  protected baseJsonSchema(): JsonSchema {
    return { type: "string", description: "Chain name, e.g. ethereum" };
  }
}

/** A date (UTC day) or timestamp: ISO 8601 text or integer Unix seconds; yields epoch ms. */
export class TimestampSchema extends Schema<number> {
  parse(value: unknown, path: string): Result<number, ApiError> {
    const ms = parseTimestamp(value);
    return ms === null
      ? invalid(path, `${path} must be an ISO 8601 date or timestamp, or Unix seconds`)
      : ok(ms);
  }
  protected baseJsonSchema(): JsonSchema {
    return { oneOf: [{ type: "string", format: "date" }, { type: "string", format: "date-time" }, { type: "integer" }] };
  }
}

export class ArraySchema<T> extends Schema<T[]> {
  constructor(
    readonly item: Schema<T>,
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

export class RecordSchema<T> extends Schema<Record<string, T>> {
  constructor(
    readonly key: Schema<string>,
    readonly value: Schema<T>,
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

type Shape = Record<string, Schema<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: undefined extends Infer<S[K]> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
export type ObjectOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & {
  [K in OptionalKeys<S>]?: Infer<S[K]>;
};

export class ObjectSchema<S extends Shape> extends Schema<ObjectOf<S>> {
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
  string: (opts?: { min?: number; max?: number; pattern?: RegExp; format?: string }) => new StringSchema(opts),
  integer: (opts?: { min?: number; max?: number; coerce?: boolean }) => new IntegerSchema(opts),
  boolean: (opts?: { coerce?: boolean }) => new BooleanSchema(opts),
  enum: <T extends string>(values: readonly T[]) => new EnumSchema(values),
  /** An amount: format checked here (`amount_invalid`), precision by the service with the asset. */
  amount: () => new DecimalSchema("amount_invalid"),
  /** A non-amount decimal such as a rate or a fraction. */
  decimal: () => new DecimalSchema("parameter_invalid"),
  asset: () => new AssetSchema(),
  chain: () => new ChainSchema(),
  timestamp: () => new TimestampSchema(),
  array: <T>(item: Schema<T>, opts?: { min?: number; max?: number; tooLarge?: ErrorCode }) => new ArraySchema(item, opts),
  record: <T>(key: Schema<string>, value: Schema<T>) => new RecordSchema(key, value),
  object: <S extends Shape>(shape: S) => new ObjectSchema(shape),
};

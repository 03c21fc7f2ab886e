import { err, ok, type Result } from "neverthrow";
import { fail, type ApiError, type ErrorCode } from "../errors";
import { Schema, invalid, type Infer, type Input, type JsonSchema, type ParseContext } from "./base-schema";

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

/** The fields of an object schema. */
export type Shape = Record<string, Schema<unknown, unknown>>;
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

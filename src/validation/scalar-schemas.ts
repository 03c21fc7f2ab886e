import { ok, type Result } from "neverthrow";
import type { ApiError, ErrorCode } from "../errors";
import type { AssetDefinition, ChainDefinition } from "../money/assets";
import { decimal, formatDecimal, isDecimalString } from "../money/decimal";
import { Schema, invalid, type JsonSchema, type ParseContext } from "./base-schema";
import { parseTimestamp } from "./timestamp";

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
 * A decimal string of docs/decisions.md §1; `amount_invalid` for amounts, `parameter_invalid` else.
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
const TIMESTAMP_TEXT = "^([0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?|0|[1-9][0-9]{0,11})$";

/** A date (UTC day) or timestamp: ISO 8601 text or integer Unix seconds; yields epoch ms. */
export class TimestampSchema extends Schema<number, string | number> {
  parse(value: unknown, path: string): Result<number, ApiError> {
    const ms = parseTimestamp(value);
    return ms === null ? invalid(path, `${path} must be an ISO 8601 date or timestamp, or Unix seconds`) : ok(ms);
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

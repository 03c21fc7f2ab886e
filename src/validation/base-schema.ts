import { ok, type Result } from "neverthrow";
import { type ApiError, fail, type ErrorCode } from "../errors";
import type { AssetRegistry } from "../money/assets";

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

/** A `parameter_invalid` (or `code`) error naming `path`: how every schema refuses a value. */
export function invalid<T>(path: string, message: string, code: ErrorCode = "parameter_invalid"): Result<T, ApiError> {
  return fail(code, message, { param: path });
}

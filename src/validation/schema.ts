import type { ErrorCode } from "../errors";
import type { Schema } from "./base-schema";
import { AssetSchema, BooleanSchema, ChainSchema, DecimalSchema, EnumSchema, IntegerSchema, StringSchema, TimestampSchema } from "./scalar-schemas";
import { ArraySchema, ExpandSchema, ObjectSchema, RecordSchema, type Shape } from "./structured-schemas";
import { EventTypeSchema, ScopeSchema } from "./catalogue-schemas";

// the one import of request schemas across the engine: the builders, the types, every schema
export { OptionalSchema, Schema, type CatalogueTerms, type Infer, type Input, type JsonSchema, type ParseContext } from "./base-schema";
export { EventTypeSchema, ScopeSchema } from "./catalogue-schemas";
export {
  AssetSchema,
  BooleanSchema,
  ChainSchema,
  DecimalSchema,
  EnumSchema,
  IntegerSchema,
  StringSchema,
  TimestampSchema,
  badTextReason,
} from "./scalar-schemas";
export { ArraySchema, ExpandSchema, MAX_EXPAND, ObjectSchema, RecordSchema, isPlainObject, type InputOf, type ObjectOf } from "./structured-schemas";

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

import { ok, type Result } from "neverthrow";
import type { ApiError } from "../errors";
import { Schema, invalid, type JsonSchema, type ParseContext } from "./base-schema";

/**
 * Schemas of the terms the engine's modules declare, checked against the catalogue of the
 * engine that parses (`ParseContext.catalogue`), so a module's event types and scopes are valid
 * input the moment it joins the list. The document refers to the `EventType` and `Scope`
 * components, which list the running engine's.
 */

/** An event type of the engine's catalogue; `withAll` also takes `*`. */
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

/** A scope of the engine's catalogue (`<resource>:read` or `<resource>:write`). */
export class ScopeSchema extends Schema<string> {
  parse(value: unknown, path: string, ctx: ParseContext): Result<string, ApiError> {
    if (ctx.catalogue.isScope(value)) return ok(value as string);
    return invalid(path, `${path} must be one of ${ctx.catalogue.scopes.join(", ")}`);
  }
  protected baseJsonSchema(): JsonSchema {
    return { $ref: "#/components/schemas/Scope" };
  }
}

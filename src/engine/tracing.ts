import { inSpan, type SpanAttributes, type TraceSpan, type Tracer } from "../ports/tracer";

/**
 * A module's host API (`engine.payouts`) with each operation in a span of its own
 * (`payouts.create`), whoever calls it: a route of the HTTP binding or the host itself. The span
 * says who asked (account, mode, request), which object the operation names, and what it
 * answered (the object's id, or the error's code). Members that are not objects of operations
 * are returned as they are; so is everything when the tracer is disabled.
 */
export function tracedApi<A>(tracer: Tracer, name: string, api: A): A {
  if (!tracer.enabled || api === null || typeof api !== "object") return api;
  const out: Record<string, unknown> = {};
  for (const [op, member] of Object.entries(api)) {
    if (typeof member !== "function") {
      out[op] = member;
      continue;
    }
    const operation = `${name}.${op}`;
    out[op] = (...args: unknown[]) =>
      inSpan(
        tracer,
        operation,
        () => ({ attributes: operationAttributes(operation, args) }),
        () => (member as (...a: unknown[]) => unknown)(...args),
        answered,
      );
  }
  return Object.freeze(out) as A;
}

/** The operation, who asks (a `RequestContext` first argument) and the id it names (a string second argument). */
function operationAttributes(operation: string, args: readonly unknown[]): SpanAttributes {
  const attributes: SpanAttributes = { "payrail.operation": operation };
  const [ctx, id] = args as [Record<string, unknown> | undefined, unknown];
  if (ctx && typeof ctx === "object") {
    if (typeof ctx.accountId === "string") attributes["payrail.account_id"] = ctx.accountId;
    if (typeof ctx.livemode === "boolean") attributes["payrail.livemode"] = ctx.livemode;
    if (typeof ctx.requestId === "string") attributes["payrail.request_id"] = ctx.requestId;
  }
  if (typeof id === "string" && /^[a-z]+_[A-Za-z0-9]+$/.test(id)) attributes["payrail.object_id"] = id;
  return attributes;
}

/** What a `Result` answered: the object and its id, or the error's code. */
function answered(span: TraceSpan, value: unknown): void {
  const result = value as { isOk?: () => boolean; value?: unknown; error?: { code?: unknown } } | null;
  if (!result || typeof result.isOk !== "function") return;
  if (!result.isOk()) {
    if (typeof result.error?.code === "string") span.setAttributes({ "payrail.error.code": result.error.code });
    return;
  }
  const object = result.value as { id?: unknown; object?: unknown } | null;
  if (object && typeof object === "object" && typeof object.id === "string") {
    span.setAttributes({ "payrail.object_id": object.id, ...(typeof object.object === "string" ? { "payrail.object": object.object } : {}) });
  }
}

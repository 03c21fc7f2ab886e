import type { Engine } from "../../src/engine/engine";
import type { TraceContext } from "../../src/ports/tracer";
import type { HttpMiddleware } from "./middleware";

/**
 * Traces each request with the engine's tracer (`EngineOptions.tracer`): a server span
 * (`POST /v1/payouts`, the route's template) continuing the caller's trace when it sends
 * `traceparent` (W3C Trace Context), with the request id, the account and the status as
 * attributes. Everything the request does (the operation, its storage transactions, the due
 * work it schedules) is inside it. Runs after `requestId`; does nothing when nothing traces.
 */
export function traceRequest(engine: Engine): HttpMiddleware {
  const tracer = engine.tracer;
  if (!tracer.enabled) return (_c, next) => next();
  return async (c, next) => {
    const traceparent = c.req.header("traceparent");
    const tracestate = c.req.header("tracestate");
    const parent: TraceContext | null = traceparent ? { traceparent, ...(tracestate ? { tracestate } : {}) } : null;
    const method = c.req.method;
    const span = tracer.startSpan(method, {
      kind: "server",
      parent,
      attributes: { "http.request.method": method, "url.path": c.req.path, "payrail.request_id": c.get("requestId") },
    });
    try {
      await span.run(() => next());
      const route = c.get("route");
      if (route) span.updateName(`${method} ${route}`);
      const ctx = c.get("ctx");
      span.setAttributes({
        "http.response.status_code": c.res.status,
        ...(route ? { "http.route": route } : {}),
        ...(ctx ? { "payrail.account_id": ctx.accountId, "payrail.livemode": ctx.livemode } : {}),
      });
      if (c.res.status >= 500) span.fail(c.error ?? `HTTP ${c.res.status}`);
    } catch (e) {
      span.fail(e);
      throw e;
    } finally {
      span.end();
    }
  };
}

import type { CallTiming } from "./guard";
import type { DeliveryAdapter } from "./delivery";
import type { SpanAttributes, Tracer } from "./tracer";

/** What a span of an adapter call says: the port, the adapter, the method, and the payrail ids and chain its first argument names. */
export function callAttributes(port: string, adapter: string, operation: string, args: readonly unknown[]): SpanAttributes {
  const attributes: SpanAttributes = { "payrail.port": port, "payrail.adapter": adapter, "payrail.operation": operation };
  const [first] = args;
  const subject = (Array.isArray(first) ? first[0] : first) as Record<string, unknown> | string | undefined;
  if (typeof subject === "string" && port === "chain") attributes["payrail.chain"] = subject;
  if (subject && typeof subject === "object") {
    if (typeof subject.chain === "string") attributes["payrail.chain"] = subject.chain;
    if (typeof subject.transferId === "string") attributes["payrail.leg_id"] = subject.transferId;
    if (Array.isArray(first) && first.length > 1) attributes["payrail.batch_size"] = first.length;
  }
  return attributes;
}

/**
 * The delivery adapter with tracing: each attempt is a span (`webhook send`), and carries it to
 * the receiver as `traceparent` (and `tracestate`) headers beside the signed ones, so a receiver
 * that traces joins the trace. Unchanged with a disabled tracer.
 */
export function tracedDelivery(delivery: DeliveryAdapter, tracer: Tracer): { adapter: DeliveryAdapter; timing?: CallTiming } {
  if (!tracer.enabled) return { adapter: delivery };
  const adapter: DeliveryAdapter = {
    name: delivery.name,
    checkUrl: (url) => delivery.checkUrl(url),
    send: (request) => {
      const context = tracer.current();
      if (!context) return delivery.send(request);
      const headers = { ...request.headers, traceparent: context.traceparent, ...(context.tracestate ? { tracestate: context.tracestate } : {}) };
      return delivery.send({ ...request, headers });
    },
    close: () => delivery.close(),
  };
  const span = (operation: string, args: readonly unknown[]) => {
    const attributes: SpanAttributes = { "payrail.port": "delivery", "payrail.adapter": delivery.name, "payrail.operation": operation };
    // the host only: a webhook URL's path and query may hold the receiver's secrets
    const url = (args[0] as { url?: unknown } | undefined)?.url;
    if (operation === "send" && typeof url === "string" && URL.canParse(url)) attributes["server.address"] = new URL(url).hostname;
    return { name: `webhook ${operation}`, attributes };
  };
  return { adapter, timing: { now: () => 0, report: () => undefined, trace: { tracer, span } } };
}

import type { CallTiming } from "./guard";
import type { DeliveryAdapter } from "./delivery";
import type { SpanAttributes, Tracer } from "./tracer";

/**
 * What a span of an adapter call says: the port, the adapter, the method, and the chain and payrail
 * ids its first argument names (a broadcast's leg, a venue execution's swap or fill, a screened recipient).
 */
export function callAttributes(port: string, adapter: string, operation: string, args: readonly unknown[]): SpanAttributes {
  const attributes: SpanAttributes = { "payrail.port": port, "payrail.adapter": adapter, "payrail.operation": operation };
  const [first] = args;
  if (typeof first === "string" && port === "chain") attributes["payrail.chain"] = first;
  if (Array.isArray(first)) {
    // broadcastMany: the legs it sends (25 ids at most), on the chain of the first
    const legs = first.map((t) => (t as { transferId?: unknown })?.transferId).filter((id): id is string => typeof id === "string");
    if (legs.length) attributes["payrail.leg_ids"] = legs.slice(0, 25);
    attributes["payrail.batch_size"] = first.length;
  }
  const subject = (Array.isArray(first) ? first[0] : first) as Record<string, unknown> | undefined;
  if (subject && typeof subject === "object") {
    if (typeof subject.chain === "string") attributes["payrail.chain"] = subject.chain;
    if (!Array.isArray(first) && typeof subject.transferId === "string") attributes["payrail.leg_id"] = subject.transferId;
    if (typeof subject.executionId === "string") attributes["payrail.execution_id"] = subject.executionId;
    if (typeof subject.recipientId === "string") attributes["payrail.recipient_id"] = subject.recipientId;
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

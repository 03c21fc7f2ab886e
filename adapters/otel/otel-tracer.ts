import {
  context,
  createTraceState,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TracerProvider,
} from "@opentelemetry/api";
import type { SpanKind as PayrailSpanKind, SpanOptions, TraceContext, TraceSpan, Tracer } from "../../src/ports/public";
import { formatTraceparent, parseTraceparent } from "./trace-context";

export interface OpenTelemetryTracerOptions {
  /** Where spans go. Default: the global provider (`trace.getTracerProvider()`, set by the host's SDK). */
  tracerProvider?: TracerProvider;
  /** The instrumentation scope the spans are under (default `payrail`). */
  name?: string;
  /** Its version, when the host wants one recorded. */
  version?: string;
}

const KINDS: Record<PayrailSpanKind, SpanKind> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

/**
 * The engine's tracer (`createEngine({ tracer })`, and the HTTP binding through it) on
 * OpenTelemetry: spans of `@opentelemetry/api` under the scope `payrail`, the active span in
 * OpenTelemetry's context (register a context manager, as the Node SDK does, for spans to nest
 * across awaits), and trace context read and written as W3C `traceparent`/`tracestate`.
 * docs/tracing.md lists every span and attribute.
 */
export function createOpenTelemetryTracer(options: OpenTelemetryTracerOptions = {}): Tracer {
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  const otel = provider.getTracer(options.name ?? "payrail", options.version);
  return {
    enabled: true,
    startSpan(name: string, spanOptions: SpanOptions = {}): TraceSpan {
      const parent = (spanOptions.parent && remoteContext(spanOptions.parent)) || context.active();
      const span = otel.startSpan(name, { kind: KINDS[spanOptions.kind ?? "internal"], attributes: spanOptions.attributes }, parent);
      return wrap(span, trace.setSpan(parent, span));
    },
    current(): TraceContext | null {
      const spanContext = trace.getSpanContext(context.active());
      if (!spanContext || !isSpanContextValid(spanContext)) return null;
      const traceparent = formatTraceparent({ traceId: spanContext.traceId, spanId: spanContext.spanId, flags: spanContext.traceFlags });
      const tracestate = spanContext.traceState?.serialize();
      return tracestate ? { traceparent, tracestate } : { traceparent };
    },
  };
}

/** The active context with the remote span `parent` names as its span, or null when its `traceparent` is malformed. */
function remoteContext(parent: TraceContext): Context | null {
  const parsed = parseTraceparent(parent.traceparent);
  if (!parsed) return null;
  return trace.setSpanContext(context.active(), {
    traceId: parsed.traceId,
    spanId: parsed.spanId,
    traceFlags: parsed.flags,
    isRemote: true,
    ...(parent.tracestate ? { traceState: createTraceState(parent.tracestate) } : {}),
  });
}

function wrap(span: Span, active: Context): TraceSpan {
  return {
    setAttributes: (attributes) => void span.setAttributes(attributes),
    updateName: (name) => void span.updateName(name),
    fail: (error) => {
      if (error instanceof Error) span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    },
    end: () => span.end(),
    run: (fn) => context.with(active, fn),
  };
}

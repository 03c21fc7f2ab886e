/**
 * `payrail/adapters/otel`: the engine's tracer on OpenTelemetry (`@opentelemetry/api`, an
 * optional peer dependency used only here). Pass `createOpenTelemetryTracer()` to
 * `createEngine({ tracer })`; docs/tracing.md lists every span and attribute.
 */
export { createOpenTelemetryTracer, type OpenTelemetryTracerOptions } from "./otel-tracer";
export { formatTraceparent, parseTraceparent, type TraceParent } from "./trace-context";
export { NO_TRACER, inSpan } from "../../src/ports/public";
export type { Tracer, TraceSpan, TraceContext, SpanOptions, SpanAttributes, SpanKind } from "../../src/ports/public";

/**
 * The tracer port: spans around what the engine does, so a host sees one payout's path through
 * its HTTP request, the engine operation, the storage transactions, the due work it scheduled and
 * the chain, venue and webhook calls, as one trace. `payrail/adapters/otel` implements it on
 * `@opentelemetry/api` (an optional peer dependency used only there); the default, `NO_TRACER`,
 * records nothing and costs nothing: the core skips every span when `enabled` is false.
 *
 * Trace context crosses process and storage boundaries as W3C Trace Context (`traceparent`,
 * `tracestate`): read from a request's headers, kept with the due work a request schedules,
 * and sent on webhook deliveries (docs/tracing.md).
 */
export interface Tracer {
  /** False for `NO_TRACER`: the core makes no span, reads no context and builds no attribute. */
  readonly enabled: boolean;
  /** Starts a span: a child of `options.parent` when given, else of the active span (a root without one). */
  startSpan(name: string, options?: SpanOptions): TraceSpan;
  /** The active span's context, as a `traceparent` header would carry it; null when no span is active. */
  current(): TraceContext | null;
}

/** W3C Trace Context as HTTP headers carry it. */
export interface TraceContext {
  /** `00-<trace id>-<span id>-<flags>` */
  traceparent: string;
  tracestate?: string;
}

export type SpanKind = "internal" | "server" | "client" | "producer" | "consumer";

export type SpanAttributes = Record<string, string | number | boolean | string[]>;

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: SpanAttributes;
  /**
   * The parent, from elsewhere: a request's headers, the context due work was scheduled in.
   * Absent or null: the active span. One the tracer cannot read is ignored (the active span).
   */
  parent?: TraceContext | null;
}

export interface TraceSpan {
  setAttributes(attributes: SpanAttributes): void;
  /** Names it anew (an HTTP server span once its route is known). */
  updateName(name: string): void;
  /** Marks it failed: `error` is recorded as an exception (a string is the status message only). */
  fail(error: unknown): void;
  end(): void;
  /** Runs `fn` with this span active: spans started inside it, synchronously or after awaits, are its children. */
  run<T>(fn: () => T): T;
}

const NO_SPAN: TraceSpan = {
  setAttributes: () => undefined,
  updateName: () => undefined,
  fail: () => undefined,
  end: () => undefined,
  run: (fn) => fn(),
};

/** The tracer that records nothing: the default. */
export const NO_TRACER: Tracer = {
  enabled: false,
  startSpan: () => NO_SPAN,
  current: () => null,
};

/**
 * Runs `fn` in a new span that ends when it returns or, when it returns a promise (or any
 * thenable), when that settles: a throw or a rejection fails the span. `settled` sees a value
 * before the span ends (to add attributes). The value is returned as it is (a thenable that is
 * also something else, an async iterable, stays one). With a disabled tracer, `fn` just runs.
 */
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions | (() => SpanOptions),
  fn: () => T,
  settled?: (span: TraceSpan, value: Awaited<T>) => void,
): T {
  if (!tracer.enabled) return fn();
  const span = tracer.startSpan(name, typeof options === "function" ? options() : options);
  const failed = (e: unknown) => {
    span.fail(e);
    span.end();
  };
  let result: T;
  try {
    result = span.run(fn);
  } catch (e) {
    failed(e);
    throw e;
  }
  const ok = (value: unknown) => {
    try {
      settled?.(span, value as Awaited<T>);
    } catch {
      // an attribute that could not be read: the span still ends, the engine's work goes on
    }
    span.end();
  };
  if (isThenable(result)) result.then(ok, failed);
  else ok(result);
  return result;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
}

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` header as the ids
 * and flags of a span, and back. The adapter reads and writes it itself, so a trace crosses
 * requests, due work and webhooks whether or not the host registered a propagator.
 */
export interface TraceParent {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** The trace flags; bit 0 is `sampled`. */
  flags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The span a `traceparent` names, or null when the header is malformed (a version `ff`, ids of
 * zeros, upper-case hex, a version `00` with more fields). A later version is read as far as
 * version `00` goes, as the specification asks.
 */
export function parseTraceparent(header: string): TraceParent | null {
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, flags: Number.parseInt(flags, 16) };
}

/** The `traceparent` header (version `00`) of a span. */
export function formatTraceparent({ traceId, spanId, flags }: TraceParent): string {
  return `00-${traceId}-${spanId}-${(flags & 0xff).toString(16).padStart(2, "0")}`;
}

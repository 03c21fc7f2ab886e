/**
 * The delivery port: one HTTP POST of a signed webhook. The real adapter
 * (`createHttpDelivery`, adapters/delivery) uses undici with keep-alive, no redirects, a
 * timeout and an SSRF guard; tests use local receivers or a fake. The core builds the body and
 * the headers (signature included) and the adapter sends them byte for byte. The core wraps the
 * adapter (`guardMethods`), so anything it throws reaches the core as an `AdapterError`.
 */
export interface DeliveryAdapter {
  /** Adapter name for error messages. */
  readonly name: string;
  /**
   * Why this adapter would refuse to deliver to `url`, judged from the URL alone (scheme,
   * credentials, an address literal in a private range), or null. Called by the core when an
   * endpoint is registered or its URL changes, so such a URL is refused with a 400 at once
   * rather than failing every delivery later. Host names are judged when each attempt resolves
   * them, not here.
   */
  checkUrl(url: URL): string | null;
  /**
   * Sends one attempt: POST `body` with exactly `headers` to `url`, following no redirect.
   * Never throws for a network failure: a refused connection, a reset, a timeout or a refused
   * address comes back as `{ kind: "error" }`. Called by the delivery worker outside any
   * storage transaction; many calls run at once.
   */
  send(request: DeliveryRequest): Promise<DeliveryResult>;
  /** Releases connections. The engine calls it once from `close()`; nothing is sent after. */
  close(): Promise<void>;
}

export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Cut the attempt (connection, request and response) after this many ms (docs/decisions.md §6: 10 s). */
  timeoutMs: number;
}

export type DeliveryResult =
  | {
      kind: "response";
      status: number;
      /** `Retry-After` in whole seconds (from seconds or an HTTP date) when the receiver sent one. */
      retryAfterSeconds: number | null;
      latencyMs: number;
    }
  | { kind: "error"; error: string; latencyMs: number };

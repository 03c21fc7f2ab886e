/**
 * The delivery port: one HTTP POST of a signed webhook. The real adapter uses Node's fetch with
 * keep-alive, no redirects, a timeout and an SSRF guard; tests use local receivers or a fake.
 * The core builds the body and headers; the adapter sends them byte for byte.
 */
export interface DeliveryAdapter {
  /** Adapter name for error messages. */
  readonly name: string;
  /**
   * Sends one attempt. Never throws for a network failure: a refused connection, a reset, a
   * timeout or a refused address comes back as `{ error }`. Called by the delivery worker outside
   * any storage transaction.
   */
  send(request: DeliveryRequest): Promise<DeliveryResult>;
}

export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Cut the attempt after this many milliseconds (DECISIONS.md §6: 10 s). */
  timeoutMs: number;
}

export type DeliveryResult =
  | {
      kind: "response";
      status: number;
      /** `Retry-After` in seconds when the receiver sent one. */
      retryAfterSeconds: number | null;
      latencyMs: number;
    }
  | { kind: "error"; error: string; latencyMs: number };

/**
 * The screening port: a recipient is screened once at registration. Providers answer
 * asynchronously, so the engine submits and later asks for the verdict from a worker.
 */
export interface ScreeningAdapter {
  /** Adapter name for error messages. */
  readonly name: string;
  /**
   * Submits a recipient for screening. Idempotent by `recipientId`. Returns the verdict at once
   * when the provider has one, else `pending`.
   */
  submit(request: ScreeningRequest): Promise<ScreeningVerdict>;
  /** The current verdict for a submitted recipient. Called by the screening worker. */
  verdict(recipientId: string): Promise<ScreeningVerdict>;
}

export interface ScreeningRequest {
  recipientId: string;
  name: string;
  /** Chain name to address. */
  addresses: Record<string, string>;
}

export type ScreeningVerdict = { status: "pending" } | { status: "cleared" } | { status: "flagged"; reason: string };

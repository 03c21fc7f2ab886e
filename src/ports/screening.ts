/**
 * The screening port: a recipient is screened at registration (and again when its addresses
 * change). Providers answer asynchronously, so the screening worker asks until a verdict comes.
 */
export interface ScreeningAdapter {
  /** Adapter name for error messages. */
  readonly name: string;
  /** True for simulations: never used for live accounts. Default false. */
  readonly testModeOnly?: boolean;
  /**
   * Submits a recipient for screening, or asks how its screening stands. Idempotent by
   * `recipientId` and `version`: the first call submits, later calls return the current verdict
   * (`pending` until the provider decides). A new `version` (changed addresses) is a new
   * submission. Called by the screening worker, outside storage transactions.
   */
  screen(request: ScreeningRequest): Promise<ScreeningVerdict>;
}

export interface ScreeningRequest {
  recipientId: string;
  /** Grows when the recipient's addresses change. */
  version: number;
  name: string;
  /** Chain name to address. */
  addresses: Record<string, string>;
}

export type ScreeningVerdict = { status: "pending" } | { status: "cleared" } | { status: "flagged"; reason: string };

import type { Clock, ScreeningAdapter, ScreeningRequest, ScreeningVerdict } from "../../src/ports/public";

/** docs/decisions.md §10: a recipient whose name contains this (any case) is screened `flagged`. */
export const FLAGGED_NAME = "flagged";

export interface SimulatedScreeningOptions {
  clock: Clock;
  /** How long a verdict takes after submission (default 1 s). */
  delayMs?: number;
  /** Addresses and names that are flagged (compared case-insensitively). */
  denylist?: { addresses?: string[]; names?: string[] };
}

/**
 * A screening provider that decides after a delay on the engine's clock: flagged when a name or
 * an address is on the denylist, or when the name contains `flagged` (the magic value of
 * docs/decisions.md §10), cleared otherwise. Deterministic; serves test mode and `npm start`.
 */
export class SimulatedScreening implements ScreeningAdapter {
  readonly name = "simulated-screening";
  readonly testModeOnly = true;
  private readonly submitted = new Map<string, number>();
  private readonly delayMs: number;
  private readonly addresses: Set<string>;
  private readonly names: Set<string>;

  constructor(private readonly options: SimulatedScreeningOptions) {
    this.delayMs = options.delayMs ?? 1_000;
    this.addresses = new Set((options.denylist?.addresses ?? []).map((a) => a.toLowerCase()));
    this.names = new Set((options.denylist?.names ?? []).map((n) => n.toLowerCase()));
  }

  /** Adds an address or name to the denylist (affects verdicts not yet given). */
  deny(entry: { address?: string; name?: string }): void {
    if (entry.address) this.addresses.add(entry.address.toLowerCase());
    if (entry.name) this.names.add(entry.name.toLowerCase());
  }

  async screen(request: ScreeningRequest): Promise<ScreeningVerdict> {
    const key = `${request.recipientId}@${request.version}`;
    const now = this.options.clock.now();
    if (!this.submitted.has(key)) this.submitted.set(key, now);
    if (now - this.submitted.get(key)! < this.delayMs) return { status: "pending" };
    const hit = Object.entries(request.addresses).find(([, address]) => this.addresses.has(address.toLowerCase()));
    if (hit) return { status: "flagged", reason: `${hit[0]} address is on the denylist` };
    const name = request.name.toLowerCase();
    if (this.names.has(name)) return { status: "flagged", reason: "name is on the denylist" };
    if (name.includes(FLAGGED_NAME)) return { status: "flagged", reason: `name contains "${FLAGGED_NAME}" (test mode)` };
    return { status: "cleared" };
  }
}

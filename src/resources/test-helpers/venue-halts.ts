import type { ModuleDeps } from "../../engine/context";
import type { Json } from "../../ports/storage";

/**
 * docs/decisions.md §10: `POST /v1/test_helpers/venues/halt` makes venues refuse to execute for one
 * test-mode account until a moment (swaps fail with `swap.failed`, limit orders wait). Kept in
 * the account's settings (`test_venue_halts`: venue name, or `all`, to epoch ms), so it holds
 * across restarts and engine processes; the venues themselves are untouched, and live accounts
 * (which share them) never see a halt.
 */
export type VenueHalts = Record<string, number>;

export const ALL_VENUES = "all";

export function venueHaltsOf(settings: unknown): VenueHalts {
  const halts = (settings as { test_venue_halts?: VenueHalts } | null)?.test_venue_halts;
  return halts && typeof halts === "object" ? halts : {};
}

/** The settings with `venue` halted until `until` (a past moment lifts it); expired halts are dropped. */
export function withVenueHalt(settings: unknown, venue: string, until: number, now: number): Json {
  const halts: VenueHalts = {};
  for (const [name, at] of Object.entries(venueHaltsOf(settings))) if (at > now) halts[name] = at;
  if (until > now) halts[venue] = until;
  else delete halts[venue];
  return { ...(settings as object), test_venue_halts: halts } as Json;
}

/**
 * Whether a venue refuses to execute for the account now: never in live mode. Returns a
 * predicate over venue names (one storage read, only in test mode).
 */
export async function haltedVenues(deps: Pick<ModuleDeps, "storage" | "clock">, accountId: string, livemode: boolean): Promise<(venue: string) => boolean> {
  if (livemode) return () => false;
  const account = await deps.storage.read((tx) => tx.accounts.getAccount(accountId));
  const halts = venueHaltsOf(account?.settings);
  const now = deps.clock.now();
  if ((halts[ALL_VENUES] ?? 0) > now) return () => true;
  return (venue) => (halts[venue] ?? 0) > now;
}

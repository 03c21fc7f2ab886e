import type { UnitOfWork } from "../../engine/unit-of-work";
import type { OwnerRecord } from "../../ports/storage";
import { ownersAfterReap } from "../../workers/process-lease";
import type { LegDoc, PayoutDoc } from "./payout-doc";

/**
 * The claims on payout legs being sent (`sendingSince`, `sendingBy`): who holds one, when it can
 * be taken over, and whether a run's outcome may still be recorded on it.
 */

/** What a claim is judged against: the claim period, claims known void, the holders' records. */
export interface ClaimRules {
  sendClaimMs: number;
  /** Claims made before this were made by a process that died (`EngineDeps.claimsValidFrom`). */
  claimsValidFrom: number;
  /** The owners holding the claims, as `holdersOf` read them. */
  holders: Map<string, OwnerRecord>;
}

/** The records of the processes holding claims on these payouts' legs, after reaping the dead. */
export function holdersOf(uow: UnitOfWork, docs: readonly PayoutDoc[]): Promise<Map<string, OwnerRecord>> {
  const sending = docs.flatMap((d) => d.legs.filter((l) => l.status === "pending" && l.sendingSince != null).map((l) => l.sendingBy));
  return ownersAfterReap(uow.tx, sending, uow.now);
}

/**
 * When another run's claim on a pending `leg` can be taken over, or null if it can be now (no
 * claim, a claim run out or made before `claimsValidFrom`, or a holder declared dead): the end
 * of the claim period, or sooner the end of its holder's current life (looked at again then).
 */
export function claimEnds(leg: LegDoc, now: number, rules: ClaimRules): number | null {
  const since = leg.sendingSince ?? null;
  if (since === null || since < rules.claimsValidFrom || now - since >= rules.sendClaimMs) return null;
  const holder = leg.sendingBy ? rules.holders.get(leg.sendingBy) : undefined;
  if (holder?.deadAt != null) return null;
  return Math.min(since + rules.sendClaimMs, holder ? Math.max(holder.aliveUntil, now + 1) : Number.POSITIVE_INFINITY);
}

/**
 * Whether a send's outcome may be recorded on `leg` by the process now named `me`: still pending
 * and claimed, by `me` or by a process that does not heartbeat (fencing: a process declared dead
 * goes on under a new name, and what it claimed under the old one is not its own).
 */
export function claimedBy(leg: LegDoc, me: string): boolean {
  const by = leg.sendingBy ?? null;
  return leg.status === "pending" && (leg.sendingSince ?? null) !== null && (by === null || by === me);
}

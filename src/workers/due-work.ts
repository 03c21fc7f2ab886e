import type { IdGenerator } from "../ids";
import type { DueWorkRecord, Json } from "../ports/storage";

/** A new, unclaimed due work item (`job_…`), due at `options.runAt` (default `now`). */
export function newDueWork(
  ids: IdGenerator,
  now: number,
  kind: string,
  payload: Json,
  options: { runAt?: number; dedupeKey?: string; accountId: string | null; group?: string },
): DueWorkRecord {
  return {
    id: ids.next("job"),
    kind,
    accountId: options.accountId,
    payload,
    runAt: options.runAt ?? now,
    leaseOwner: null,
    leaseUntil: null,
    attempts: 0,
    lastError: null,
    status: "ready",
    dedupeKey: options.dedupeKey ?? null,
    group: options.group ?? null,
    created: now,
  };
}

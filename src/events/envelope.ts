import type { Event } from "./event-object";
import type { Out } from "../api/response-schema";
import type { EventRecord } from "../ports/storage";
import { isoTime } from "../validation/timestamp";
import { LATEST_VERSION } from "../versions/api-versions";

/**
 * The event envelope of the seed, as the API and webhooks send it, in the newest version's shape
 * (`renderForVersion` makes it older for a client pinned to an older version).
 */
export type EventEnvelope = Out<typeof Event>;

export function toEnvelope(record: EventRecord): EventEnvelope {
  return {
    id: record.id,
    object: "event",
    type: record.type,
    created: isoTime(record.created),
    livemode: record.livemode,
    api_version: LATEST_VERSION,
    data: record.data as EventEnvelope["data"],
    request: record.request,
  };
}

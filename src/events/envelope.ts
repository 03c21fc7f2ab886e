import type { Event } from "./event-object";
import type { Out } from "../api/response-schema";
import type { EventRecord } from "../ports/storage";
import { isoTime } from "../validation/timestamp";

/** The event envelope of the seed, as the API and webhooks send it. */
export type EventEnvelope = Out<typeof Event>;

export function toEnvelope(record: EventRecord): EventEnvelope {
  return {
    id: record.id,
    object: "event",
    type: record.type,
    created: isoTime(record.created),
    livemode: record.livemode,
    data: record.data as EventEnvelope["data"],
    request: record.request,
  };
}

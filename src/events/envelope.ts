import type { EventRecord } from "../ports/storage";
import { isoTime } from "../validation/timestamp";

/** The event envelope of the seed, as the API and webhooks send it. */
export interface EventEnvelope {
  id: string;
  object: "event";
  type: string;
  created: string;
  livemode: boolean;
  data: { object: unknown };
  request: { id: string | null; idempotency_key: string | null };
}

export function toEnvelope(record: EventRecord): EventEnvelope {
  return {
    id: record.id,
    object: "event",
    type: record.type,
    created: isoTime(record.created),
    livemode: record.livemode,
    data: record.data as { object: unknown },
    request: record.request,
  };
}

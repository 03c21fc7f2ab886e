import type { EventEnvelope, ListOf, PayrailClient } from "./api-client";
import { tail } from "./tail";

/** How long one long-poll of `GET /v1/events` waits (seconds): a late commit is found within it. */
const LONG_POLL_SECONDS = 5;

/**
 * The host's "now" (epoch ms): the later of its `Date` header and its newest event. Tails start
 * there, so a clock that disagrees with the host's neither hides new events nor repeats old ones.
 */
export async function hostNow(client: PayrailClient, signal: AbortSignal): Promise<number> {
  const { body, date } = await client.exchange<ListOf<EventEnvelope>>("GET", "/v1/events", { query: { limit: 1 }, signal });
  const newest = body.data[0] ? Date.parse(body.data[0].created) : 0;
  return Math.max(date ?? Date.now(), newest);
}

export interface FollowEventsOptions {
  /** Only these types (all when empty). One type is filtered by the host, several here. */
  types: readonly string[];
  startAt: number;
  onEvents(events: EventEnvelope[]): void;
  onError(error: unknown): void;
}

/**
 * Follows the account's events as they are committed, oldest first, by long-polling
 * `GET /v1/events?wait=…` (the host answers as soon as an event newer than the last one seen
 * exists) and reading the look-back window each time. Runs until `signal` aborts.
 */
export function followEvents(client: PayrailClient, options: FollowEventsOptions, signal: AbortSignal): Promise<void> {
  const type = options.types.length === 1 ? options.types[0] : undefined;
  const wanted = new Set(options.types);
  const iso = (ms: number) => new Date(ms).toISOString();
  return tail<EventEnvelope>(
    {
      startAt: options.startAt,
      fetchPage: (createdGte, cursor, s) =>
        client.get<ListOf<EventEnvelope>>("/v1/events", {
          query: { created_gte: iso(createdGte), limit: 200, type, starting_after: cursor },
          signal: s,
        }),
      waitForNew: async (createdGte, s) => {
        await client.get("/v1/events", { query: { created_gte: iso(createdGte), limit: 1, type, wait: LONG_POLL_SECONDS }, signal: s });
      },
      created: (e) => Date.parse(e.created),
      id: (e) => e.id,
      onRows: (events) => {
        const shown = wanted.size > 1 ? events.filter((e) => wanted.has(e.type)) : events;
        if (shown.length) options.onEvents(shown);
      },
      onError: options.onError,
    },
    signal,
  );
}

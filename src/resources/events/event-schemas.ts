import { listParamsShape } from "../../lists/list-params";
import { s, type Input } from "../../validation/schema";

/** Request schemas of events. */

/** The longest a list request may hold its answer waiting for an event (`wait`). */
export const MAX_EVENT_WAIT_SECONDS = 30;

export const listEventsSchema = s.object({
  ...listParamsShape,
  type: s.eventType().optional().describe("Only events of this type"),
  wait: s
    .integer({ min: 0, max: MAX_EVENT_WAIT_SECONDS, coerce: true })
    .optional()
    .describe("Long-poll: when no event matches, hold the answer up to this many seconds and answer as soon as one does"),
});

export const listEventTypesSchema = s.object({
  limit: listParamsShape.limit,
  starting_after: listParamsShape.starting_after,
  ending_before: listParamsShape.ending_before,
});

export type ListEventTypesParams = Input<typeof listEventTypesSchema>;
export type ListEventsParams = Input<typeof listEventsSchema>;

import { Event, EventList } from "../../events/event-object";
import type { RouteDefinition } from "../../engine/route";
import { listEventsSchema, listEventTypesSchema } from "./event-schemas";
import type { EventsService } from "./events-service";
import { EventTypeDefinitionList } from "./event-type-objects";
import type { EventTypesService } from "./event-types-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface EventsApi {
  events: Pick<EventsService, "retrieve" | "list">;
  eventTypes: Pick<EventTypesService, "list">;
}

export const eventRoutes: RouteDefinition<EventsApi>[] = [
  {
    method: "get",
    path: "/v1/events",
    summary: "List events, newest first (kept 30 days)",
    tag: "Events",
    scope: "events:read",
    query: listEventsSchema,
    returns: EventList,
    handler: ({ api, ctx, query }) => api.events.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/events/:id",
    summary: "Retrieve an event",
    tag: "Events",
    scope: "events:read",
    returns: Event,
    handler: ({ api, ctx, params }) => api.events.retrieve(ctx, params.id!),
  },
  {
    method: "get",
    path: "/v1/event_types",
    summary: "List the event types, each with its description and the JSON Schema of its data.object, ordered by type",
    tag: "Events",
    scope: "events:read",
    query: listEventTypesSchema,
    returns: EventTypeDefinitionList,
    handler: ({ api, ctx, query }) => api.eventTypes.list(ctx, query),
  },
];

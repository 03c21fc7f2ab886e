import { Event, EventList } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { listEventsSchema } from "./event-schemas";

export const eventRoutes: RouteDefinition[] = [
  {
    method: "get",
    path: "/v1/events",
    summary: "List events, newest first (kept 30 days)",
    tag: "Events",
    scope: "events:read",
    query: listEventsSchema,
    returns: EventList,
    handler: ({ engine, ctx, query }) => engine.events.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/events/:id",
    summary: "Retrieve an event",
    tag: "Events",
    scope: "events:read",
    returns: Event,
    handler: ({ engine, ctx, params }) => engine.events.retrieve(ctx, params.id!),
  },
];

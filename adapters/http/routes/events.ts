import { listEventsSchema, triggerEventSchema } from "../../../src/services/events";
import type { RouteDefinition } from "../route";

export const eventRoutes: RouteDefinition[] = [
  {
    method: "get",
    path: "/v1/events",
    summary: "List events, newest first (kept 30 days)",
    tag: "Events",
    scope: "events:read",
    query: listEventsSchema,
    returns: "list of event",
    handler: ({ engine, ctx, query }) => engine.events.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/events/:id",
    summary: "Retrieve an event",
    tag: "Events",
    scope: "events:read",
    returns: "event",
    handler: ({ engine, ctx, params }) => engine.events.get(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/test_helpers/events/trigger",
    summary: "Emit an event of a type about a sample object, delivered like any other (test mode)",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: triggerEventSchema,
    returns: "event",
    handler: ({ engine, ctx, body }) => engine.events.trigger(ctx, body),
  },
];

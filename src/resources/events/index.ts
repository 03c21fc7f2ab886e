import { defineModule, operations } from "../../engine/module";
import { EventsService } from "./events-service";
import { EventTypesService } from "./event-types-service";
import { eventRoutes } from "./routes";

export type { ListEventsParams, ListEventTypesParams } from "./event-schemas";
export type { EventsApi } from "./routes";

/** The outbox as an account reads it: `GET /v1/events[/{id}]`, long-polled with `wait`; the catalogue of event types. */
export const eventsModule = defineModule({
  name: "events",
  scopes: ["events"],
  tags: [{ name: "Events", description: "Things that happened, 30 days back" }],
  routes: eventRoutes,
  setup: ({ deps }) => {
    const events = new EventsService(deps);
    return {
      api: { events: operations(events, ["retrieve", "list"]), eventTypes: operations(new EventTypesService(deps), ["list"]) },
      provides: { events },
      // a commit in this process may have written events: lists waiting for them look again
      committed: () => events.notify(),
      close: () => events.close(),
    };
  },
});

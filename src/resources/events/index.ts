import { defineModule } from "../../engine/resource-module";
import { EventsService } from "./events-service";
import { eventRoutes } from "./routes";

/** The outbox as an account reads it: `GET /v1/events[/{id}]`. */
export const eventsModule = defineModule({
  name: "events",
  routes: eventRoutes,
  setup: ({ deps }) => ({ services: { events: new EventsService(deps) } }),
});

import { defineModule } from "../../engine/resource-module";
import { eventsModule } from "../events";
import { paymentIntentsModule } from "../payment-intents";
import { testHelperRoutes } from "./routes";
import { TestHelpersService } from "./test-helpers-service";

/** DECISIONS.md §7: what drives the simulated world in test mode. */
export const testHelpersModule = defineModule({
  name: "test_helpers",
  routes: testHelperRoutes,
  setup: ({ deps, worker, use }) => ({
    services: {
      testHelpers: new TestHelpersService(deps, worker, use(paymentIntentsModule).paymentIntents.watchers, use(eventsModule).events),
    },
  }),
});

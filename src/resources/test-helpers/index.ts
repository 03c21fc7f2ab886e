import { defineModule, operations } from "../../engine/module";
import { paymentIntentsModule } from "../payment-intents";
import { testHelperRoutes } from "./routes";
import { TestHelpersService } from "./test-helpers-service";

export type {
  AdvanceChainInput,
  AdvanceClockInput,
  FundInput,
  HaltVenuesInput,
  PayPaymentIntentInput,
  ReorgChainInput,
  TriggerEventInput,
} from "./test-helper-schemas";
export type { TestChainObject, TestClockObject } from "./test-helpers-service";
export type { TestHelpersApi } from "./routes";

/** docs/decisions.md §7: what drives the simulated world in test mode. */
export const testHelpersModule = defineModule({
  name: "test_helpers",
  scopes: ["test_helpers"],
  tags: [{ name: "Test helpers", description: "Drive the simulated world (test-mode keys only)" }],
  routes: testHelperRoutes,
  setup: ({ deps, worker, use }) => {
    const helpers = new TestHelpersService(deps, worker, use(paymentIntentsModule).watchers);
    return {
      api: { testHelpers: operations(helpers, ["fund", "advanceClock", "advanceChain", "reorgChain", "payPaymentIntent", "haltVenues", "triggerEvent"]) },
    };
  },
});

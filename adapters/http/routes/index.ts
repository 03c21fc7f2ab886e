import type { RouteDefinition } from "../route";
import { balanceRoutes } from "./balances";
import { eventRoutes } from "./events";
import { paymentIntentRoutes } from "./payment-intents";
import { payoutRoutes } from "./payouts";
import { recipientRoutes } from "./recipients";
import { testHelperRoutes } from "./test-helpers";
import { webhookEndpointRoutes } from "./webhook-endpoints";
import { quoteRoutes } from "./quotes";
import { swapRoutes } from "./swaps";
import { limitOrderRoutes } from "./limit-orders";

/** Every route of the /v1 binding; a resource's routes live in its own file. */
export const ROUTES: readonly RouteDefinition[] = [
  ...balanceRoutes,
  ...eventRoutes,
  ...testHelperRoutes,
  ...recipientRoutes,
  ...payoutRoutes,
  ...paymentIntentRoutes,
  ...webhookEndpointRoutes,
  ...quoteRoutes,
  ...swapRoutes,
  ...limitOrderRoutes,
];

import { defineModule, operations, work } from "../../engine/module";
import { LIMIT_ORDER_EVENTS } from "./limit-order-events";
import { LimitOrderMatching } from "./limit-order-matching";
import { LimitOrderTransitions } from "./limit-order-transitions";
import { LIMIT_ORDER_EXPIRE, LIMIT_ORDER_MATCH } from "./limit-order-work";
import { LimitOrdersService } from "./limit-orders-service";
import { limitOrderRoutes } from "./routes";

export type { FillObject, LimitOrderObject } from "./limit-order-doc";
export type { CreateLimitOrderInput, ListLimitOrdersParams } from "./limit-order-schemas";
export type { LimitOrdersApi } from "./routes";

/** Limit orders: reserved funds filled at or above a target rate. */
export const limitOrdersModule = defineModule({
  name: "limit_orders",
  ids: { lo: "limit order", fil: "limit order fill" },
  scopes: ["limit_orders"],
  tags: [{ name: "Limit orders", description: "Conversions that wait for a target rate" }],
  events: LIMIT_ORDER_EVENTS,
  routes: limitOrderRoutes,
  setup: ({ deps }) => {
    const transitions = new LimitOrderTransitions(deps);
    const limitOrders = new LimitOrdersService(deps, transitions);
    const matching = new LimitOrderMatching(deps, transitions);
    return {
      api: { limitOrders: operations(limitOrders, ["create", "retrieve", "list", "cancel"]) },
      work: [work(LIMIT_ORDER_MATCH, (job) => matching.matchDue(job)), work(LIMIT_ORDER_EXPIRE, (job) => limitOrders.expireDue(job))],
    };
  },
});

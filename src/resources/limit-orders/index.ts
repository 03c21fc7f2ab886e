import { defineModule, work } from "../../engine/resource-module";
import { LIMIT_ORDER_EXPIRE, LIMIT_ORDER_MATCH, LimitOrdersService } from "./limit-orders-service";
import { limitOrderRoutes } from "./routes";

/** Limit orders: reserved funds filled at or above a target rate. */
export const limitOrdersModule = defineModule({
  name: "limit_orders",
  routes: limitOrderRoutes,
  setup: ({ deps }) => {
    const limitOrders = new LimitOrdersService(deps);
    return {
      services: { limitOrders },
      work: [work(LIMIT_ORDER_MATCH, (job) => limitOrders.matchDue(job)), work(LIMIT_ORDER_EXPIRE, (job) => limitOrders.expireDue(job))],
    };
  },
});

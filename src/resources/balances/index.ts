import { defineModule } from "../../engine/resource-module";
import { BalancesService } from "./balances-service";
import { balanceRoutes } from "./routes";

/** `GET /v1/balances`. */
export const balancesModule = defineModule({
  name: "balances",
  routes: balanceRoutes,
  setup: ({ deps }) => ({ services: { balances: new BalancesService(deps) } }),
});

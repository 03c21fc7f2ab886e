import { defineModule, operations } from "../../engine/module";
import { BalancesService } from "./balances-service";
import { balanceRoutes } from "./routes";

export type { ListBalancesParams } from "./balance-schemas";
export type { BalancesApi } from "./routes";

/** `GET /v1/balances` (the ledger behind it, and `balance.updated`, are the engine's own). */
export const balancesModule = defineModule({
  name: "balances",
  scopes: ["balances"],
  tags: [{ name: "Balances", description: "What the account holds per asset and chain, and the ledger entries behind it" }],
  routes: balanceRoutes,
  setup: ({ deps }) => ({ api: { balances: operations(new BalancesService(deps), ["list"]) } }),
});

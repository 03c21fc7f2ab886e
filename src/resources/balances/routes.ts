import { BalanceList } from "../../ledger/ledger-objects";
import type { RouteDefinition } from "../../engine/route";
import { listBalancesSchema } from "./balance-schemas";
import type { BalancesService } from "./balances-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface BalancesApi {
  balances: Pick<BalancesService, "list">;
}

export const balanceRoutes: RouteDefinition<BalancesApi>[] = [
  {
    method: "get",
    path: "/v1/balances",
    summary: "List balances per asset, with available, reserved and pending amounts per chain",
    tag: "Balances",
    scope: "balances:read",
    query: listBalancesSchema,
    returns: BalanceList,
    handler: ({ api, ctx, query }) => api.balances.list(ctx, query),
  },
];

import { BalanceList } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { listBalancesSchema } from "./balance-schemas";

export const balanceRoutes: RouteDefinition[] = [
  {
    method: "get",
    path: "/v1/balances",
    summary: "List balances per asset, with available, reserved and pending amounts per chain",
    tag: "Balances",
    scope: "balances:read",
    query: listBalancesSchema,
    returns: BalanceList,
    handler: ({ engine, ctx, query }) => engine.balances.list(ctx, query),
  },
];

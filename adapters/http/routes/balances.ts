import { ok } from "neverthrow";
import type { RouteDefinition } from "../route";

export const balanceRoutes: RouteDefinition[] = [
  {
    method: "get",
    path: "/v1/balances",
    summary: "List balances per asset, with available, reserved and pending amounts per chain",
    tag: "Balances",
    scope: "balances:read",
    returns: "list of balance",
    handler: async ({ engine, ctx }) => ok(await engine.balances.list(ctx)),
  },
];

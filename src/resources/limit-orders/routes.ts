import { LimitOrder, LimitOrderList } from "./limit-order-objects";
import type { RouteDefinition } from "../../engine/route";
import { createLimitOrderSchema, listLimitOrdersSchema } from "./limit-order-schemas";
import type { LimitOrdersService } from "./limit-orders-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface LimitOrdersApi {
  limitOrders: Pick<LimitOrdersService, "create" | "retrieve" | "list" | "cancel">;
}

export const limitOrderRoutes: RouteDefinition<LimitOrdersApi>[] = [
  {
    method: "post",
    path: "/v1/limit_orders",
    summary: "Place a limit order: the input is reserved and fills at target_rate or better after all fees",
    tag: "Limit orders",
    scope: "limit_orders:write",
    body: createLimitOrderSchema,
    idempotencyRequired: true,
    failures: ["insufficient_funds", "no_route", "insufficient_liquidity"],
    returns: LimitOrder,
    handler: ({ api, ctx, body }) => api.limitOrders.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/limit_orders",
    summary: "List limit orders, newest first",
    tag: "Limit orders",
    scope: "limit_orders:read",
    query: listLimitOrdersSchema,
    returns: LimitOrderList,
    handler: ({ api, ctx, query }) => api.limitOrders.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/limit_orders/:id",
    summary: "Retrieve a limit order",
    tag: "Limit orders",
    scope: "limit_orders:read",
    returns: LimitOrder,
    handler: ({ api, ctx, params }) => api.limitOrders.retrieve(ctx, params.id!),
  },
  {
    method: "delete",
    path: "/v1/limit_orders/:id",
    summary: "Cancel a limit order: what is still reserved is released at once; fills stay",
    tag: "Limit orders",
    scope: "limit_orders:write",
    returns: LimitOrder,
    handler: ({ api, ctx, params }) => api.limitOrders.cancel(ctx, params.id!),
  },
];

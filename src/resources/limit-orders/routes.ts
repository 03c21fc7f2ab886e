import { LimitOrder, LimitOrderList } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { createLimitOrderSchema, listLimitOrdersSchema } from "./limit-order-schemas";

export const limitOrderRoutes: RouteDefinition[] = [
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
    handler: ({ engine, ctx, body }) => engine.limitOrders.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/limit_orders",
    summary: "List limit orders, newest first",
    tag: "Limit orders",
    scope: "limit_orders:read",
    query: listLimitOrdersSchema,
    returns: LimitOrderList,
    handler: ({ engine, ctx, query }) => engine.limitOrders.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/limit_orders/:id",
    summary: "Retrieve a limit order",
    tag: "Limit orders",
    scope: "limit_orders:read",
    returns: LimitOrder,
    handler: ({ engine, ctx, params }) => engine.limitOrders.retrieve(ctx, params.id!),
  },
  {
    method: "delete",
    path: "/v1/limit_orders/:id",
    summary: "Cancel a limit order: what is still reserved is released at once; fills stay",
    tag: "Limit orders",
    scope: "limit_orders:write",
    returns: LimitOrder,
    handler: ({ engine, ctx, params }) => engine.limitOrders.cancel(ctx, params.id!),
  },
];

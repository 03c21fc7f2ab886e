import { Swap, SwapList } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { createSwapSchema, listSwapsSchema, retrieveSwapSchema } from "./swap-schemas";

export const swapRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/swaps",
    summary: "Execute a quote (once); an expired quote is quote_expired unless refresh allows a re-quote",
    tag: "Swaps",
    scope: "swaps:write",
    body: createSwapSchema,
    idempotencyRequired: true,
    failures: ["quote_expired", "insufficient_funds", "no_route", "insufficient_liquidity"],
    returns: Swap,
    handler: ({ engine, ctx, body }) => engine.swaps.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/swaps",
    summary: "List swaps, newest first",
    tag: "Swaps",
    scope: "swaps:read",
    query: listSwapsSchema,
    returns: SwapList,
    handler: ({ engine, ctx, query }) => engine.swaps.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/swaps/:id",
    summary: "Retrieve a swap; expand[]=quote replaces the quote id with the quote",
    tag: "Swaps",
    scope: "swaps:read",
    returns: Swap,
    query: retrieveSwapSchema,
    handler: ({ engine, ctx, params, query }) => engine.swaps.retrieve(ctx, params.id!, query),
  },
];

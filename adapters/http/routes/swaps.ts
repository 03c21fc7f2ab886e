import { createSwapSchema, listSwapsSchema } from "../../../src/services/swaps";
import type { RouteDefinition } from "../route";

export const swapRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/swaps",
    summary: "Execute a quote (once); an expired quote is quote_expired unless refresh allows a re-quote",
    tag: "Swaps",
    scope: "swaps:write",
    body: createSwapSchema,
    idempotencyRequired: true,
    returns: "swap",
    handler: ({ engine, ctx, body }) => engine.swaps.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/swaps",
    summary: "List swaps, newest first",
    tag: "Swaps",
    scope: "swaps:read",
    query: listSwapsSchema,
    returns: "list of swap",
    handler: ({ engine, ctx, query }) => engine.swaps.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/swaps/:id",
    summary: "Retrieve a swap",
    tag: "Swaps",
    scope: "swaps:read",
    returns: "swap",
    handler: ({ engine, ctx, params }) => engine.swaps.get(ctx, params.id!),
  },
];

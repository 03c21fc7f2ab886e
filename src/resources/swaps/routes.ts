import { Swap, SwapList } from "./swap-objects";
import type { RouteDefinition } from "../../engine/route";
import { createSwapSchema, listSwapsSchema, retrieveSwapSchema } from "./swap-schemas";
import type { SwapsService } from "./swaps-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface SwapsApi {
  swaps: Pick<SwapsService, "create" | "retrieve" | "list">;
}

export const swapRoutes: RouteDefinition<SwapsApi>[] = [
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
    handler: ({ api, ctx, body }) => api.swaps.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/swaps",
    summary: "List swaps, newest first",
    tag: "Swaps",
    scope: "swaps:read",
    query: listSwapsSchema,
    returns: SwapList,
    handler: ({ api, ctx, query }) => api.swaps.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/swaps/:id",
    summary: "Retrieve a swap; expand[]=quote replaces the quote id with the quote",
    tag: "Swaps",
    scope: "swaps:read",
    returns: Swap,
    query: retrieveSwapSchema,
    handler: ({ api, ctx, params, query }) => api.swaps.retrieve(ctx, params.id!, query),
  },
];

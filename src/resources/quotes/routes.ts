import { Quote } from "./quote-objects";
import type { RouteDefinition } from "../../engine/route";
import { createQuoteSchema } from "./quote-schemas";
import type { QuotesService } from "./quotes-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface QuotesApi {
  quotes: Pick<QuotesService, "create" | "retrieve">;
}

export const quoteRoutes: RouteDefinition<QuotesApi>[] = [
  {
    method: "post",
    path: "/v1/quotes",
    summary: "Quote converting an amount of one asset into another, split optimally across venues",
    tag: "Quotes",
    scope: "quotes:write",
    body: createQuoteSchema,
    failures: ["no_route", "insufficient_liquidity"],
    returns: Quote,
    handler: ({ api, ctx, body }) => api.quotes.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/quotes/:id",
    summary: "Retrieve a quote",
    tag: "Quotes",
    scope: "quotes:read",
    returns: Quote,
    handler: ({ api, ctx, params }) => api.quotes.retrieve(ctx, params.id!),
  },
];

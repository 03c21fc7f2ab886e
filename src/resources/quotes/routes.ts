import { Quote } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { createQuoteSchema } from "./quote-schemas";

export const quoteRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/quotes",
    summary: "Quote converting an amount of one asset into another, split optimally across venues",
    tag: "Quotes",
    scope: "quotes:write",
    body: createQuoteSchema,
    failures: ["no_route", "insufficient_liquidity"],
    returns: Quote,
    handler: ({ engine, ctx, body }) => engine.quotes.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/quotes/:id",
    summary: "Retrieve a quote",
    tag: "Quotes",
    scope: "quotes:read",
    returns: Quote,
    handler: ({ engine, ctx, params }) => engine.quotes.retrieve(ctx, params.id!),
  },
];

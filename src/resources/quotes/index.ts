import { defineModule, operations } from "../../engine/module";
import { QuotesService } from "./quotes-service";
import { quoteRoutes } from "./routes";

export type { QuoteObject } from "./quote-doc";
export type { CreateQuoteInput } from "./quote-schemas";
export type { QuotesApi } from "./routes";

/** Short-lived price commitments across the venues. */
export const quotesModule = defineModule({
  name: "quotes",
  ids: { qt: "quote" },
  scopes: ["quotes"],
  tags: [{ name: "Quotes", description: "Firm prices for conversions" }],
  routes: quoteRoutes,
  setup: ({ deps }) => ({ api: { quotes: operations(new QuotesService(deps), ["create", "retrieve"]) } }),
});

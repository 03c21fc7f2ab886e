import { defineModule } from "../../engine/resource-module";
import { QuotesService } from "./quotes-service";
import { quoteRoutes } from "./routes";

/** Short-lived price commitments across the venues. */
export const quotesModule = defineModule({
  name: "quotes",
  routes: quoteRoutes,
  setup: ({ deps }) => ({ services: { quotes: new QuotesService(deps) } }),
});

import { defineModule, work } from "../../engine/resource-module";
import { swapRoutes } from "./routes";
import { SWAP_EXECUTE, SwapsService } from "./swaps-service";

/** Swaps: a quote executed at its venues. */
export const swapsModule = defineModule({
  name: "swaps",
  routes: swapRoutes,
  setup: ({ deps }) => {
    const swaps = new SwapsService(deps);
    return { services: { swaps }, work: [work(SWAP_EXECUTE, (job) => swaps.executeDue(job))] };
  },
});

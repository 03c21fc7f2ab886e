import { defineModule, operations, work } from "../../engine/module";
import { swapRoutes } from "./routes";
import { SWAP_EVENTS } from "./swap-events";
import { SWAP_EXECUTE, SwapsService } from "./swaps-service";

export type { SwapObject } from "./swap-doc";
export type { CreateSwapInput, ListSwapsParams } from "./swap-schemas";
export type { SwapsApi } from "./routes";

/** Swaps: a quote executed at its venues. */
export const swapsModule = defineModule({
  name: "swaps",
  ids: { sw: "swap" },
  scopes: ["swaps"],
  tags: [{ name: "Swaps", description: "Conversions at a quote" }],
  events: SWAP_EVENTS,
  routes: swapRoutes,
  setup: ({ deps }) => {
    const swaps = new SwapsService(deps);
    return { api: { swaps: operations(swaps, ["create", "retrieve", "list"]) }, work: [work(SWAP_EXECUTE, (job) => swaps.executeDue(job))] };
  },
});

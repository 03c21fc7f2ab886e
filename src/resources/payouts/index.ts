import { defineModule, work } from "../../engine/resource-module";
import { BatchCounts } from "./batch-counts";
import { BatchesService } from "./batches-service";
import { PayoutTransitions } from "./payout-transitions";
import { PAYOUT_BROADCAST, PAYOUT_TRACK } from "./payout-work";
import { PayoutWorkers } from "./payout-workers";
import { PayoutsService } from "./payouts-service";
import { payoutRoutes } from "./routes";

/** Payouts split across chain legs, and batches of up to 25,000 of them. */
export const payoutsModule = defineModule({
  name: "payouts",
  routes: payoutRoutes,
  setup: ({ deps }) => {
    const transitions = new PayoutTransitions(deps);
    const batchCounts = new BatchCounts(deps);
    const workers = new PayoutWorkers(deps, transitions, batchCounts);
    const payouts = new PayoutsService(deps, transitions, batchCounts, workers);
    const batches = new BatchesService(deps, payouts, transitions);
    return {
      services: { payouts, batches },
      work: [work(PAYOUT_BROADCAST, workers.broadcastHandler()), work(PAYOUT_TRACK, workers.trackHandler())],
    };
  },
});

import { defineModule, operations, work } from "../../engine/module";
import { BATCH_OPEN_SLICE, BatchAcceptance } from "./batch-acceptance";
import { BatchCounts } from "./batch-counts";
import { BatchesService } from "./batches-service";
import { PAYOUT_EVENTS } from "./payout-events";
import { PayoutTransitions } from "./payout-transitions";
import { PAYOUT_BROADCAST, PAYOUT_TRACK } from "./payout-work";
import { PayoutWorkers } from "./payout-workers";
import { PayoutsService } from "./payouts-service";
import { payoutRoutes } from "./routes";

export type { BatchObject } from "./batch-doc";
export type { BatchValidation } from "./batches-service";
export type { LegObject, PayoutObject } from "./payout-doc";
export type { CreateBatchInput, CreateBatchParams, CreatePayoutInput, ListPayoutsParams, RetrievePayoutParams } from "./payout-schemas";
export type { PayoutsApi } from "./routes";

/** Payouts split across chain legs, and batches of up to 25,000 of them. */
export const payoutsModule = defineModule({
  name: "payouts",
  ids: { po: "payout", leg: "payout leg", bat: "payout batch" },
  scopes: ["payouts"],
  tags: [{ name: "Payouts", description: "Money sent to recipients, alone or in batches of up to 25,000" }],
  events: PAYOUT_EVENTS,
  routes: payoutRoutes,
  setup: ({ deps }) => {
    const transitions = new PayoutTransitions(deps);
    const batchCounts = new BatchCounts(deps);
    const workers = new PayoutWorkers(deps, transitions, batchCounts);
    const payouts = new PayoutsService(deps, transitions, batchCounts, workers);
    const acceptance = new BatchAcceptance(deps, payouts, transitions);
    const batches = new BatchesService(deps, acceptance);
    return {
      api: {
        payouts: operations(payouts, ["create", "retrieve", "update", "list", "approve", "cancel"]),
        batches: operations(batches, ["create", "retrieve", "list"]),
      },
      work: [work(PAYOUT_BROADCAST, workers.broadcastHandler()), work(PAYOUT_TRACK, workers.trackHandler()), work(BATCH_OPEN_SLICE, acceptance.sliceHandler())],
    };
  },
});

import { defineModule, operations, work } from "../../engine/module";
import { paymentIntentsModule } from "../payment-intents";
import { Reconciler } from "./reconciler";
import { RECONCILIATION_EVENTS } from "./reconciliation-events";
import { RECONCILE, ReconciliationsService } from "./reconciliations-service";
import { reconciliationRoutes } from "./routes";

export type { ReconciliationObject, ReconciliationSummaryObject } from "./reconciliation-doc";
export type { ListReconciliationsParams, RunReconciliationInput, AcceptReconciliationInput } from "./reconciliation-schemas";
export type { ReconciliationsApi } from "./routes";

/**
 * Reconciliation (docs/reconciliation.md): each chain's holdings, read from the chain, against
 * what the books say the engine's addresses hold, per asset, every `config.reconcileEveryMs`
 * (live; `reconcileTestEveryMs` for the simulated chains) and on demand; a difference is a `drift` record, an engine-wide event and a gauge.
 */
export const reconciliationsModule = defineModule({
  name: "reconciliations",
  ids: { rec: "reconciliation" },
  scopes: ["reconciliations"],
  tags: [{ name: "Reconciliations", description: "What each chain's addresses hold against the books: drift found, explained, accepted" }],
  events: RECONCILIATION_EVENTS,
  routes: reconciliationRoutes,
  setup: ({ deps, use }) => {
    const reconciler = new Reconciler(deps, use(paymentIntentsModule).watchers);
    const reconciliations = new ReconciliationsService(deps, reconciler);
    const modes = [false, true];
    return {
      api: { reconciliations: operations(reconciliations, ["list", "retrieve", "run", "accept"]) },
      work: [work(RECONCILE, reconciliations.handler())],
      recurring: modes.flatMap((livemode) =>
        reconciler.chainsOf(livemode).map((chain) => ({
          def: RECONCILE,
          payload: { chain, livemode },
          dedupeKey: `${RECONCILE.kind}:${livemode ? "live" : "test"}:${chain}`,
          firstRunInMs: reconciliations.everyMs(livemode),
        })),
      ),
    };
  },
});

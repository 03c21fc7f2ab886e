import { o } from "../../api/response-schema";
import type { RouteDefinition } from "../../engine/route";
import { Reconciliation, ReconciliationList } from "./reconciliation-objects";
import { acceptReconciliationSchema, listReconciliationsSchema, runReconciliationSchema } from "./reconciliation-schemas";
import type { ReconciliationsService } from "./reconciliations-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface ReconciliationsApi {
  reconciliations: Pick<ReconciliationsService, "list" | "retrieve" | "run" | "accept">;
}

const RunAnswer = o.named(
  "ReconciliationRun",
  o.object(
    {
      object: o.literal("list"),
      data: o.array(Reconciliation, { description: "Every record the run made, one per chain and asset compared" }),
      has_more: o.boolean({ description: "Always false: every record is here" }),
      next_cursor: o.nullable(o.string(), { description: "Always null" }),
      previous_cursor: o.nullable(o.string(), { description: "Always null" }),
      deferred: o.array(o.object({ chain: o.string(), reason: o.string() }), {
        description: "Chains not compared now (a conversion executing at venues there): the next scheduled run compares them",
      }),
    },
    { description: "The records a run made: the list envelope, with the chains it could not compare now" },
  ),
);

export const reconciliationRoutes: RouteDefinition<ReconciliationsApi>[] = [
  {
    method: "get",
    path: "/v1/reconciliations",
    summary: "List reconciliations of the mode's chains, newest first: what each chain holds of an asset against the books",
    tag: "Reconciliations",
    scope: "reconciliations:read",
    query: listReconciliationsSchema,
    returns: ReconciliationList,
    handler: ({ api, ctx, query }) => api.reconciliations.list(ctx, query),
  },
  {
    method: "post",
    path: "/v1/reconciliations/run",
    summary: "Reconcile now: every chain of the mode, or `chain`; answers the records made",
    tag: "Reconciliations",
    scope: "reconciliations:write",
    body: runReconciliationSchema,
    returns: RunAnswer,
    handler: ({ api, ctx, body }) => api.reconciliations.run(ctx, body),
  },
  {
    method: "get",
    path: "/v1/reconciliations/:id",
    summary: "Retrieve a reconciliation, with what explains its difference",
    tag: "Reconciliations",
    scope: "reconciliations:read",
    returns: Reconciliation,
    handler: ({ api, ctx, params }) => api.reconciliations.retrieve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/reconciliations/:id/accept",
    summary:
      "Accept a drift as the operator's own (a top-up of the hot wallet): its difference joins the float, and later readings balance. A key of the house account only",
    tag: "Reconciliations",
    scope: "reconciliations:write",
    body: acceptReconciliationSchema,
    returns: Reconciliation,
    handler: ({ api, ctx, params, body }) => api.reconciliations.accept(ctx, params.id!, body),
  },
];

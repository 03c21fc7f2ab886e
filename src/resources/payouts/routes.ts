import { Payout, PayoutBatch, PayoutBatchList, PayoutBatchOrValidation, PayoutList } from "./payout-objects";
import { BATCH_SUBMISSIONS } from "../../engine/rate-limits";
import type { RouteDefinition } from "../../engine/route";
import {
  batchQuerySchema,
  createBatchSchema,
  createPayoutSchema,
  isDryRun,
  listBatchesSchema,
  listPayoutsSchema,
  retrievePayoutSchema,
  updatePayoutSchema,
} from "./payout-schemas";
import type { PayoutsService } from "./payouts-service";
import type { BatchesService } from "./batches-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface PayoutsApi {
  payouts: Pick<PayoutsService, "create" | "retrieve" | "update" | "list" | "approve" | "cancel">;
  batches: Pick<BatchesService, "create" | "retrieve" | "list">;
}

// Batch routes come first: /v1/payouts/batches must not be read as a payout id.
export const payoutRoutes: RouteDefinition<PayoutsApi>[] = [
  {
    method: "post",
    path: "/v1/payouts/batches",
    summary: "Submit up to 25,000 payout legs at once (all or nothing); dry_run validates only",
    tag: "Payouts",
    scope: "payouts:write",
    idempotencyRequired: true,
    rateLimit: BATCH_SUBMISSIONS,
    rateLimitExempt: ({ query }) => isDryRun(query),
    body: createBatchSchema,
    query: batchQuerySchema,
    failures: ["insufficient_funds", "no_route", "insufficient_liquidity", "recipient_blocked", "policy_limit_exceeded"],
    returns: PayoutBatchOrValidation,
    handler: ({ api, ctx, body, query }) => api.batches.create(ctx, body, query),
  },
  {
    method: "get",
    path: "/v1/payouts/batches",
    summary: "List payout batches: status, created range, search (reference prefix or id), cursor",
    tag: "Payouts",
    scope: "payouts:read",
    query: listBatchesSchema,
    returns: PayoutBatchList,
    handler: ({ api, ctx, query }) => api.batches.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/payouts/batches/:id",
    summary: "Retrieve a payout batch with the counts of its payouts per status",
    tag: "Payouts",
    scope: "payouts:read",
    returns: PayoutBatch,
    handler: ({ api, ctx, params }) => api.batches.retrieve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/payouts",
    summary: "Create a payout, routed across chains",
    tag: "Payouts",
    scope: "payouts:write",
    idempotencyRequired: true,
    body: createPayoutSchema,
    failures: ["insufficient_funds", "no_route", "insufficient_liquidity", "recipient_blocked", "policy_limit_exceeded"],
    returns: Payout,
    handler: ({ api, ctx, body }) => api.payouts.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/payouts",
    summary: "List payouts: status, created range, search (reference prefix or id), cursor",
    tag: "Payouts",
    scope: "payouts:read",
    query: listPayoutsSchema,
    returns: PayoutList,
    handler: ({ api, ctx, query }) => api.payouts.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/payouts/:id",
    summary: "Retrieve a payout; expand[] takes recipient, batch and ledger_entries",
    tag: "Payouts",
    scope: "payouts:read",
    query: retrievePayoutSchema,
    returns: Payout,
    handler: ({ api, ctx, params, query }) => api.payouts.retrieve(ctx, params.id!, query),
  },
  {
    method: "post",
    path: "/v1/payouts/:id",
    summary: 'Update a payout\'s metadata (keys set; a key set to "" is removed)',
    tag: "Payouts",
    scope: "payouts:write",
    body: updatePayoutSchema,
    returns: Payout,
    handler: ({ api, ctx, params, body }) => api.payouts.update(ctx, params.id!, body),
  },
  {
    method: "post",
    path: "/v1/payouts/:id/approve",
    summary: "Approve a payout waiting in created (above the approval threshold)",
    tag: "Payouts",
    scope: "payouts:write",
    returns: Payout,
    handler: ({ api, ctx, params }) => api.payouts.approve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/payouts/:id/cancel",
    summary: "Cancel a payout still in created; its reservation is released",
    tag: "Payouts",
    scope: "payouts:write",
    returns: Payout,
    handler: ({ api, ctx, params }) => api.payouts.cancel(ctx, params.id!),
  },
];

import { Payout, PayoutBatch, PayoutBatchOrValidation, PayoutList } from "../../api/objects";
import { BATCH_SUBMISSIONS } from "../../engine/rate-limits";
import type { RouteDefinition } from "../../engine/route";
import { batchQuerySchema, createBatchSchema, createPayoutSchema, listPayoutsSchema, retrievePayoutSchema } from "./payout-schemas";

// Batch routes come first: /v1/payouts/batches must not be read as a payout id.
export const payoutRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/payouts/batches",
    summary: "Submit up to 25,000 payout legs at once (all or nothing); dry_run validates only",
    tag: "Payouts",
    scope: "payouts:write",
    idempotencyRequired: true,
    rateLimit: BATCH_SUBMISSIONS,
    body: createBatchSchema,
    query: batchQuerySchema,
    returns: PayoutBatchOrValidation,
    handler: ({ engine, ctx, body, query }) => engine.batches.create(ctx, body, query),
  },
  {
    method: "get",
    path: "/v1/payouts/batches/:id",
    summary: "Retrieve a payout batch with the counts of its payouts per status",
    tag: "Payouts",
    scope: "payouts:read",
    returns: PayoutBatch,
    handler: ({ engine, ctx, params }) => engine.batches.retrieve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/payouts",
    summary: "Create a payout, routed across chains",
    tag: "Payouts",
    scope: "payouts:write",
    idempotencyRequired: true,
    body: createPayoutSchema,
    returns: Payout,
    handler: ({ engine, ctx, body }) => engine.payouts.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/payouts",
    summary: "List payouts: status, created range, search (reference prefix or id), cursor",
    tag: "Payouts",
    scope: "payouts:read",
    query: listPayoutsSchema,
    returns: PayoutList,
    handler: ({ engine, ctx, query }) => engine.payouts.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/payouts/:id",
    summary: "Retrieve a payout; expand[] takes recipient, batch and ledger_entries",
    tag: "Payouts",
    scope: "payouts:read",
    query: retrievePayoutSchema,
    returns: Payout,
    handler: ({ engine, ctx, params, query }) => engine.payouts.retrieve(ctx, params.id!, query),
  },
  {
    method: "post",
    path: "/v1/payouts/:id/approve",
    summary: "Approve a payout waiting in created (above the approval threshold)",
    tag: "Payouts",
    scope: "payouts:write",
    returns: Payout,
    handler: ({ engine, ctx, params }) => engine.payouts.approve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/payouts/:id/cancel",
    summary: "Cancel a payout still in created; its reservation is released",
    tag: "Payouts",
    scope: "payouts:write",
    returns: Payout,
    handler: ({ engine, ctx, params }) => engine.payouts.cancel(ctx, params.id!),
  },
];

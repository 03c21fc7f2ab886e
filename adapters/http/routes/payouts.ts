import { batchQuerySchema, createBatchSchema } from "../../../src/services/payouts/batches-service";
import { createPayoutSchema, listPayoutsSchema, retrievePayoutSchema } from "../../../src/services/payouts/payouts-service";
import { BATCH_SUBMISSIONS } from "../../../src/services/rate-limits";
import type { RouteDefinition } from "../route";

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
    returns: "payout_batch (or payout_batch_validation with dry_run)",
    handler: ({ engine, ctx, body, query }) => engine.batches.create(ctx, body, query),
  },
  {
    method: "get",
    path: "/v1/payouts/batches/:id",
    summary: "Retrieve a payout batch with the counts of its payouts per status",
    tag: "Payouts",
    scope: "payouts:read",
    returns: "payout_batch",
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
    returns: "payout",
    handler: ({ engine, ctx, body }) => engine.payouts.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/payouts",
    summary: "List payouts: status, created range, search (reference prefix or id), cursor",
    tag: "Payouts",
    scope: "payouts:read",
    query: listPayoutsSchema,
    returns: "list of payout",
    handler: ({ engine, ctx, query }) => engine.payouts.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/payouts/:id",
    summary: "Retrieve a payout; expand[]=ledger_entries replaces entry ids with the entries",
    tag: "Payouts",
    scope: "payouts:read",
    query: retrievePayoutSchema,
    returns: "payout",
    handler: ({ engine, ctx, params, query }) => engine.payouts.retrieve(ctx, params.id!, query),
  },
  {
    method: "post",
    path: "/v1/payouts/:id/approve",
    summary: "Approve a payout waiting in created (above the approval threshold)",
    tag: "Payouts",
    scope: "payouts:write",
    returns: "payout",
    handler: ({ engine, ctx, params }) => engine.payouts.approve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/payouts/:id/cancel",
    summary: "Cancel a payout still in created; its reservation is released",
    tag: "Payouts",
    scope: "payouts:write",
    returns: "payout",
    handler: ({ engine, ctx, params }) => engine.payouts.cancel(ctx, params.id!),
  },
];

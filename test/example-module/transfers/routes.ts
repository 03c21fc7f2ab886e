import type { RouteDefinition } from "../../../src/engine/route";
import { Transfer, TransferList } from "./transfer-objects";
import { createTransferSchema, listTransfersSchema } from "./transfer-schemas";
import type { TransfersService } from "./transfers-service";

export interface TransfersApi {
  transfers: Pick<TransfersService, "create" | "retrieve" | "list" | "reverse">;
}

export const transferRoutes: RouteDefinition<TransfersApi>[] = [
  {
    method: "post",
    path: "/v1/transfers",
    summary: "Move funds to another account of the same mode",
    tag: "Transfers",
    scope: "transfers:write",
    idempotencyRequired: true,
    body: createTransferSchema,
    failures: ["insufficient_funds"],
    returns: Transfer,
    handler: ({ api, ctx, body }) => api.transfers.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/transfers",
    summary: "List the transfers this account sent",
    tag: "Transfers",
    scope: "transfers:read",
    query: listTransfersSchema,
    returns: TransferList,
    handler: ({ api, ctx, query }) => api.transfers.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/transfers/:id",
    summary: "Retrieve a transfer",
    tag: "Transfers",
    scope: "transfers:read",
    returns: Transfer,
    handler: ({ api, ctx, params }) => api.transfers.retrieve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/transfers/:id/reverse",
    summary: "Take a posted transfer back (while the receiver still has the funds)",
    tag: "Transfers",
    scope: "transfers:write",
    failures: ["insufficient_funds"],
    returns: Transfer,
    handler: ({ api, ctx, params }) => api.transfers.reverse(ctx, params.id!),
  },
];

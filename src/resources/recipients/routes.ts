import { DeletedRecipient, Recipient, RecipientList } from "./recipient-objects";
import type { RouteDefinition } from "../../engine/route";
import { createRecipientSchema, listRecipientsSchema, updateRecipientSchema } from "./recipient-schemas";
import type { RecipientsService } from "./recipients-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface RecipientsApi {
  recipients: Pick<RecipientsService, "create" | "retrieve" | "update" | "del" | "list">;
}

export const recipientRoutes: RouteDefinition<RecipientsApi>[] = [
  {
    method: "post",
    path: "/v1/recipients",
    summary: "Register a recipient (screened once when screening is true)",
    tag: "Recipients",
    scope: "recipients:write",
    body: createRecipientSchema,
    returns: Recipient,
    handler: ({ api, ctx, body }) => api.recipients.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/recipients",
    summary: "List recipients; search matches a prefix of the name or an exact id",
    tag: "Recipients",
    scope: "recipients:read",
    query: listRecipientsSchema,
    returns: RecipientList,
    handler: ({ api, ctx, query }) => api.recipients.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/recipients/:id",
    summary: "Retrieve a recipient",
    tag: "Recipients",
    scope: "recipients:read",
    returns: Recipient,
    handler: ({ api, ctx, params }) => api.recipients.retrieve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/recipients/:id",
    summary: "Update a recipient's name, addresses (screened again when screening is on) or metadata",
    tag: "Recipients",
    scope: "recipients:write",
    body: updateRecipientSchema,
    returns: Recipient,
    handler: ({ api, ctx, params, body }) => api.recipients.update(ctx, params.id!, body),
  },
  {
    method: "delete",
    path: "/v1/recipients/:id",
    summary: "Delete a recipient",
    tag: "Recipients",
    scope: "recipients:write",
    returns: DeletedRecipient,
    handler: ({ api, ctx, params }) => api.recipients.del(ctx, params.id!),
  },
];

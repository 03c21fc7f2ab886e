import { DeletedRecipient, Recipient, RecipientList } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { createRecipientSchema, listRecipientsSchema, updateRecipientSchema } from "./recipient-schemas";

export const recipientRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/recipients",
    summary: "Register a recipient (screened once when screening is true)",
    tag: "Recipients",
    scope: "recipients:write",
    body: createRecipientSchema,
    returns: Recipient,
    handler: ({ engine, ctx, body }) => engine.recipients.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/recipients",
    summary: "List recipients; search matches a prefix of the name or an exact id",
    tag: "Recipients",
    scope: "recipients:read",
    query: listRecipientsSchema,
    returns: RecipientList,
    handler: ({ engine, ctx, query }) => engine.recipients.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/recipients/:id",
    summary: "Retrieve a recipient",
    tag: "Recipients",
    scope: "recipients:read",
    returns: Recipient,
    handler: ({ engine, ctx, params }) => engine.recipients.retrieve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/recipients/:id",
    summary: "Update a recipient's name or addresses (screened again when screening is on)",
    tag: "Recipients",
    scope: "recipients:write",
    body: updateRecipientSchema,
    returns: Recipient,
    handler: ({ engine, ctx, params, body }) => engine.recipients.update(ctx, params.id!, body),
  },
  {
    method: "delete",
    path: "/v1/recipients/:id",
    summary: "Delete a recipient",
    tag: "Recipients",
    scope: "recipients:write",
    returns: DeletedRecipient,
    handler: ({ engine, ctx, params }) => engine.recipients.del(ctx, params.id!),
  },
];

import { PaymentIntent, PaymentIntentList } from "./payment-intent-objects";
import type { RouteDefinition } from "../../engine/route";
import { createPaymentIntentSchema, listPaymentIntentsSchema, retrievePaymentIntentSchema, updatePaymentIntentSchema } from "./payment-intent-schemas";
import type { PaymentIntentsService } from "./payment-intents-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface PaymentIntentsApi {
  paymentIntents: Pick<PaymentIntentsService, "create" | "retrieve" | "update" | "list">;
}

export const paymentIntentRoutes: RouteDefinition<PaymentIntentsApi>[] = [
  {
    method: "post",
    path: "/v1/payment_intents",
    summary: "Create a payment intent: an amount to receive, with a deposit address per chain",
    tag: "Payment intents",
    scope: "payment_intents:write",
    body: createPaymentIntentSchema,
    returns: PaymentIntent,
    handler: ({ api, ctx, body }) => api.paymentIntents.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/payment_intents",
    summary: "List payment intents: status, created range, search (reference prefix or id), cursor",
    tag: "Payment intents",
    scope: "payment_intents:read",
    query: listPaymentIntentsSchema,
    returns: PaymentIntentList,
    handler: ({ api, ctx, query }) => api.paymentIntents.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/payment_intents/:id",
    summary: "Retrieve a payment intent; expand[] takes settlements, ledger_entries and settlements.payment_intent",
    tag: "Payment intents",
    scope: "payment_intents:read",
    query: retrievePaymentIntentSchema,
    returns: PaymentIntent,
    handler: ({ api, ctx, params, query }) => api.paymentIntents.retrieve(ctx, params.id!, query),
  },
  {
    method: "post",
    path: "/v1/payment_intents/:id",
    summary: 'Update a payment intent\'s metadata (keys set; a key set to "" is removed)',
    tag: "Payment intents",
    scope: "payment_intents:write",
    body: updatePaymentIntentSchema,
    returns: PaymentIntent,
    handler: ({ api, ctx, params, body }) => api.paymentIntents.update(ctx, params.id!, body),
  },
];

import { PaymentIntent, PaymentIntentList } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { createPaymentIntentSchema, listPaymentIntentsSchema, retrievePaymentIntentSchema } from "./payment-intent-schemas";

export const paymentIntentRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/payment_intents",
    summary: "Create a payment intent: an amount to receive, with a deposit address per chain",
    tag: "Payment intents",
    scope: "payment_intents:write",
    body: createPaymentIntentSchema,
    returns: PaymentIntent,
    handler: ({ engine, ctx, body }) => engine.paymentIntents.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/payment_intents",
    summary: "List payment intents: status, created range, search (reference prefix or id), cursor",
    tag: "Payment intents",
    scope: "payment_intents:read",
    query: listPaymentIntentsSchema,
    returns: PaymentIntentList,
    handler: ({ engine, ctx, query }) => engine.paymentIntents.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/payment_intents/:id",
    summary: "Retrieve a payment intent; expand[] takes settlements, ledger_entries and settlements.payment_intent",
    tag: "Payment intents",
    scope: "payment_intents:read",
    query: retrievePaymentIntentSchema,
    returns: PaymentIntent,
    handler: ({ engine, ctx, params, query }) => engine.paymentIntents.retrieve(ctx, params.id!, query),
  },
];

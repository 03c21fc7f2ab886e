import {
  createPaymentIntentSchema,
  listPaymentIntentsSchema,
  payPaymentIntentSchema,
  retrievePaymentIntentSchema,
} from "../../../src/services/payment-intents/payment-intents-service";
import type { RouteDefinition } from "../route";

export const paymentIntentRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/payment_intents",
    summary: "Create a payment intent: an amount to receive, with a deposit address per chain",
    tag: "Payment intents",
    scope: "payment_intents:write",
    body: createPaymentIntentSchema,
    returns: "payment_intent",
    handler: ({ engine, ctx, body }) => engine.paymentIntents.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/payment_intents",
    summary: "List payment intents: status, created range, search (reference prefix or id), cursor",
    tag: "Payment intents",
    scope: "payment_intents:read",
    query: listPaymentIntentsSchema,
    returns: "list of payment_intent",
    handler: ({ engine, ctx, query }) => engine.paymentIntents.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/payment_intents/:id",
    summary: "Retrieve a payment intent; expand[] takes settlements and ledger_entries",
    tag: "Payment intents",
    scope: "payment_intents:read",
    query: retrievePaymentIntentSchema,
    returns: "payment_intent",
    handler: ({ engine, ctx, params, query }) => engine.paymentIntents.retrieve(ctx, params.id!, query),
  },
  {
    method: "post",
    path: "/v1/test_helpers/payment_intents/:id/pay",
    summary: "A payer sends an amount to the intent's deposit address on a chain (simulated)",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: payPaymentIntentSchema,
    returns: "payment_intent",
    handler: ({ engine, ctx, params, body }) => engine.paymentIntents.testPay(ctx, params.id!, body),
  },
];

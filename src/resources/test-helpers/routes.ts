import { Balance } from "../../ledger/ledger-objects";
import { Event } from "../../events/event-object";
import { PaymentIntent } from "../payment-intents/payment-intent-objects";
import { TestChain, TestClock, TestVenueHalt } from "./test-helper-objects";
import type { RouteDefinition } from "../../engine/route";
import {
  advanceChainSchema,
  advanceClockSchema,
  fundSchema,
  haltVenuesSchema,
  payPaymentIntentSchema,
  reorgChainSchema,
  triggerEventSchema,
} from "./test-helper-schemas";
import type { TestHelpersService } from "./test-helpers-service";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface TestHelpersApi {
  testHelpers: Pick<TestHelpersService, "fund" | "advanceClock" | "advanceChain" | "reorgChain" | "payPaymentIntent" | "haltVenues" | "triggerEvent">;
}

export const testHelperRoutes: RouteDefinition<TestHelpersApi>[] = [
  {
    method: "post",
    path: "/v1/test_helpers/balances/fund",
    summary: "Credit test funds to the available balance of an asset on a chain",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: fundSchema,
    returns: Balance,
    handler: ({ api, ctx, body }) => api.testHelpers.fund(ctx, body),
  },
  {
    method: "post",
    path: "/v1/test_helpers/clock/advance",
    summary: "Move the manual clock forward, running due work on the way (manual clock only)",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: advanceClockSchema,
    returns: TestClock,
    handler: ({ api, ctx, body }) => api.testHelpers.advanceClock(ctx, body),
  },
  {
    method: "post",
    path: "/v1/test_helpers/chains/:chain/advance",
    summary: "Mine blocks on a simulated chain now",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: advanceChainSchema,
    returns: TestChain,
    handler: ({ api, ctx, params, body }) => api.testHelpers.advanceChain(ctx, params.chain!, body),
  },
  {
    method: "post",
    path: "/v1/test_helpers/chains/:chain/reorg",
    summary: "Replace the last blocks of a simulated chain",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: reorgChainSchema,
    returns: TestChain,
    handler: ({ api, ctx, params, body }) => api.testHelpers.reorgChain(ctx, params.chain!, body),
  },
  {
    method: "post",
    path: "/v1/test_helpers/payment_intents/:id/pay",
    summary: "A payer sends an amount to the intent's deposit address on a chain (simulated)",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: payPaymentIntentSchema,
    returns: PaymentIntent,
    handler: ({ api, ctx, params, body }) => api.testHelpers.payPaymentIntent(ctx, params.id!, body),
  },
  {
    method: "post",
    path: "/v1/test_helpers/venues/halt",
    summary: "Make a venue (or all) refuse to execute for this account for some seconds: swaps fail, limit orders wait",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: haltVenuesSchema,
    returns: TestVenueHalt,
    handler: ({ api, ctx, body }) => api.testHelpers.haltVenues(ctx, body),
  },
  {
    method: "post",
    path: "/v1/test_helpers/events/trigger",
    summary: "Emit an event of a type about a sample object, delivered like any other (test mode)",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: triggerEventSchema,
    returns: Event,
    handler: ({ api, ctx, body }) => api.testHelpers.triggerEvent(ctx, body),
  },
];

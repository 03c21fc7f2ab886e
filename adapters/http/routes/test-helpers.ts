import { advanceChainSchema, advanceClockSchema, fundSchema, reorgChainSchema } from "../../../src/services/test-helpers";
import type { RouteDefinition } from "../route";

export const testHelperRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/test_helpers/balances/fund",
    summary: "Credit test funds to the available balance of an asset on a chain",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: fundSchema,
    returns: "balance",
    handler: ({ engine, ctx, body }) => engine.testHelpers.fund(ctx, body),
  },
  {
    method: "post",
    path: "/v1/test_helpers/clock/advance",
    summary: "Move the manual clock forward, running due work on the way (manual clock only)",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: advanceClockSchema,
    returns: "test_clock",
    handler: ({ engine, ctx, body }) => engine.testHelpers.advanceClock(ctx, body),
  },
  {
    method: "post",
    path: "/v1/test_helpers/chains/:chain/advance",
    summary: "Mine blocks on a simulated chain now",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: advanceChainSchema,
    returns: "test_chain",
    handler: ({ engine, ctx, params, body }) => engine.chainHelpers.advance(ctx, params.chain!, body),
  },
  {
    method: "post",
    path: "/v1/test_helpers/chains/:chain/reorg",
    summary: "Replace the last blocks of a simulated chain",
    tag: "Test helpers",
    scope: "test_helpers:write",
    testModeOnly: true,
    body: reorgChainSchema,
    returns: "test_chain",
    handler: ({ engine, ctx, params, body }) => engine.chainHelpers.reorg(ctx, params.chain!, body),
  },
];

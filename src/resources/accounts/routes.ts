import { Account } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { policySchema } from "./policy";

export const accountRoutes: RouteDefinition[] = [
  {
    method: "get",
    path: "/v1/account",
    summary: "The account of the API key, with its payout policy",
    tag: "Account",
    scope: "account:read",
    returns: Account,
    handler: ({ engine, ctx }) => engine.accounts.retrieve(ctx),
  },
  {
    method: "post",
    path: "/v1/account/policy",
    summary: "Set the payout policy per asset: each field given replaces that part (max_payout_amount, approval_threshold)",
    tag: "Account",
    scope: "account:write",
    body: policySchema,
    returns: Account,
    handler: ({ engine, ctx, body }) => engine.accounts.updatePolicy(ctx, body),
  },
];

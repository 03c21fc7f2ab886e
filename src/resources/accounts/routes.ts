import { Account } from "./account-objects";
import type { RouteDefinition } from "../../engine/route";
import { policySchema } from "./policy";
import { updateAccountSchema } from "./account-schemas";
import type { AccountsService } from "./accounts-service";
import type { AuthService } from "./auth";

/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface AccountsApi {
  accounts: Pick<AccountsService, "create" | "get" | "house" | "context" | "setPolicy" | "policy" | "retrieve" | "update" | "updatePolicy" | "createApiKey">;
  auth: Pick<AuthService, "authenticate" | "authorize">;
}

export const accountRoutes: RouteDefinition<AccountsApi>[] = [
  {
    method: "get",
    path: "/v1/account",
    summary: "The account of the API key, with its payout policy",
    tag: "Account",
    scope: "account:read",
    returns: Account,
    handler: ({ api, ctx }) => api.accounts.retrieve(ctx),
  },
  {
    method: "post",
    path: "/v1/account",
    summary: "Update the account: its default API version (api_version), used by requests without Payrail-Version and by its webhooks",
    tag: "Account",
    scope: "account:write",
    body: updateAccountSchema,
    returns: Account,
    handler: ({ api, ctx, body }) => api.accounts.update(ctx, body),
  },
  {
    method: "post",
    path: "/v1/account/policy",
    summary: "Set the payout policy per asset: each field given replaces that part (max_payout_amount, approval_threshold)",
    tag: "Account",
    scope: "account:write",
    body: policySchema,
    returns: Account,
    handler: ({ api, ctx, body }) => api.accounts.updatePolicy(ctx, body),
  },
];

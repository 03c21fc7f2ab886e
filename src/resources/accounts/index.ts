import { defineModule, operations } from "../../engine/module";
import { ACCOUNT_EVENTS } from "./account-events";
import { AccountsService } from "./accounts-service";
import { AuthService } from "./auth";
import { accountRoutes, type AccountsApi } from "./routes";

export type { AccountObject, CreateAccountInput, CreateApiKeyInput, CreatedApiKey } from "./accounts-service";
export type { AccountPolicy, PolicyInput } from "./policy";
export type { AccountsApi } from "./routes";

/** Accounts, their API keys and policy (`GET /v1/account`, `POST /v1/account/policy`), and bearer-key authentication. */
export const accountsModule = defineModule({
  name: "accounts",
  ids: { key: "API key" },
  scopes: ["account"],
  tags: [{ name: "Account", description: "The account of the API key and its payout policy" }],
  events: ACCOUNT_EVENTS,
  routes: accountRoutes,
  setup: ({ deps }): { api: AccountsApi } => {
    const accounts = new AccountsService(deps);
    const auth = new AuthService(deps);
    return {
      api: {
        accounts: operations(accounts, ["create", "get", "house", "context", "setPolicy", "policy", "retrieve", "updatePolicy", "createApiKey"]),
        auth: operations(auth, ["authenticate", "authorize"]),
      },
    };
  },
});

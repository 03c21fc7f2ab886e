import { defineModule } from "../../engine/resource-module";
import { AccountsService } from "./accounts-service";
import { AuthService } from "./auth";
import { accountRoutes } from "./routes";

/** Accounts, their API keys and policy (`GET /v1/account`, `POST /v1/account/policy`), and bearer-key authentication. */
export const accountsModule = defineModule({
  name: "accounts",
  routes: accountRoutes,
  setup: ({ deps }) => ({ services: { accounts: new AccountsService(deps), auth: new AuthService(deps) } }),
});

import { defineModule } from "../../engine/resource-module";
import { AccountsService } from "./accounts-service";
import { AuthService } from "./auth";

/** Accounts, their API keys and policy (host-managed), and bearer-key authentication. */
export const accountsModule = defineModule({
  name: "accounts",
  routes: [],
  setup: ({ deps }) => ({ services: { accounts: new AccountsService(deps), auth: new AuthService(deps) } }),
});

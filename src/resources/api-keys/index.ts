import { defineModule } from "../../engine/resource-module";
import { ApiKeysService } from "./api-keys-service";
import { apiKeyRoutes } from "./routes";

/** The account's API keys: create, list, roll, revoke (DECISIONS.md §3; full-access keys only over HTTP). */
export const apiKeysModule = defineModule({
  name: "api_keys",
  routes: apiKeyRoutes,
  setup: ({ deps }) => ({ services: { apiKeys: new ApiKeysService(deps) } }),
});

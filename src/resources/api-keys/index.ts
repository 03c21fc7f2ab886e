import { defineModule, operations } from "../../engine/module";
import { API_KEY_EVENTS } from "./api-key-events";
import { ApiKeysService } from "./api-keys-service";
import { apiKeyRoutes } from "./routes";

export type { ApiKeyObject } from "./api-keys-service";
export type { CreateApiKeyRequest, ListApiKeysParams, RollApiKeyInput } from "./api-key-schemas";
export type { ApiKeysApi } from "./routes";

/** The account's API keys: create, list, roll, revoke (docs/decisions.md §3; full-access keys only over HTTP). */
export const apiKeysModule = defineModule({
  name: "api_keys",
  tags: [{ name: "API keys", description: "The account's API keys: created, rolled and revoked by full-access keys" }],
  events: API_KEY_EVENTS,
  routes: apiKeyRoutes,
  setup: ({ deps }) => ({ api: { apiKeys: operations(new ApiKeysService(deps), ["create", "retrieve", "list", "roll", "revoke"]) } }),
});

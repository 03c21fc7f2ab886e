import { ApiKey, ApiKeyList } from "./api-key-objects";
import type { RouteDefinition } from "../../engine/route";
import { createApiKeySchema, listApiKeysSchema, rollApiKeySchema } from "./api-key-schemas";
import type { ApiKeysService } from "./api-keys-service";

/** Key management: full-access keys only (a restricted key gets 403 `permission_denied`). */
/** The host API of the module: its API operations (members of the engine, and what its routes call). */
export interface ApiKeysApi {
  apiKeys: Pick<ApiKeysService, "create" | "retrieve" | "list" | "roll" | "revoke">;
}

export const apiKeyRoutes: RouteDefinition<ApiKeysApi>[] = [
  {
    method: "post",
    path: "/v1/api_keys",
    summary: "Create an API key with scopes (none: full access); the key is shown once, in this answer",
    tag: "API keys",
    scope: "full_access",
    body: createApiKeySchema,
    returns: ApiKey,
    handler: ({ api, ctx, body }) => api.apiKeys.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/api_keys",
    summary: "List the account's API keys, newest first (the last 4 characters of each)",
    tag: "API keys",
    scope: "full_access",
    query: listApiKeysSchema,
    returns: ApiKeyList,
    handler: ({ api, ctx, query }) => api.apiKeys.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/api_keys/:id",
    summary: "Retrieve an API key (the last 4 characters of it)",
    tag: "API keys",
    scope: "full_access",
    returns: ApiKey,
    handler: ({ api, ctx, params }) => api.apiKeys.retrieve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/api_keys/:id/roll",
    summary: "Replace a key: a new key (shown once) with the same scopes; the old one works for grace_period seconds more",
    tag: "API keys",
    scope: "full_access",
    body: rollApiKeySchema,
    returns: ApiKey,
    handler: ({ api, ctx, params, body }) => api.apiKeys.roll(ctx, params.id!, body),
  },
  {
    method: "post",
    path: "/v1/api_keys/:id/revoke",
    summary: "Revoke a key: it stops authenticating at once",
    tag: "API keys",
    scope: "full_access",
    returns: ApiKey,
    handler: ({ api, ctx, params }) => api.apiKeys.revoke(ctx, params.id!),
  },
];

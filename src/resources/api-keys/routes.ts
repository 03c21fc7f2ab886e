import { ApiKey, ApiKeyList } from "../../api/objects";
import type { RouteDefinition } from "../../engine/route";
import { createApiKeySchema, listApiKeysSchema, rollApiKeySchema } from "./api-key-schemas";

/** Key management: full-access keys only (a restricted key gets 403 `permission_denied`). */
export const apiKeyRoutes: RouteDefinition[] = [
  {
    method: "post",
    path: "/v1/api_keys",
    summary: "Create an API key with scopes (none: full access); the key is shown once, in this answer",
    tag: "API keys",
    scope: "full_access",
    body: createApiKeySchema,
    returns: ApiKey,
    handler: ({ engine, ctx, body }) => engine.apiKeys.create(ctx, body),
  },
  {
    method: "get",
    path: "/v1/api_keys",
    summary: "List the account's API keys, newest first (the last 4 characters of each)",
    tag: "API keys",
    scope: "full_access",
    query: listApiKeysSchema,
    returns: ApiKeyList,
    handler: ({ engine, ctx, query }) => engine.apiKeys.list(ctx, query),
  },
  {
    method: "get",
    path: "/v1/api_keys/:id",
    summary: "Retrieve an API key (the last 4 characters of it)",
    tag: "API keys",
    scope: "full_access",
    returns: ApiKey,
    handler: ({ engine, ctx, params }) => engine.apiKeys.retrieve(ctx, params.id!),
  },
  {
    method: "post",
    path: "/v1/api_keys/:id/roll",
    summary: "Replace a key: a new key (shown once) with the same scopes; the old one works for grace_period seconds more",
    tag: "API keys",
    scope: "full_access",
    body: rollApiKeySchema,
    returns: ApiKey,
    handler: ({ engine, ctx, params, body }) => engine.apiKeys.roll(ctx, params.id!, body),
  },
  {
    method: "post",
    path: "/v1/api_keys/:id/revoke",
    summary: "Revoke a key: it stops authenticating at once",
    tag: "API keys",
    scope: "full_access",
    returns: ApiKey,
    handler: ({ engine, ctx, params }) => engine.apiKeys.revoke(ctx, params.id!),
  },
];

import { API_VERSIONS, LATEST_VERSION, VERSION_HEADER } from "../../src/versions/api-versions";
import { ERROR_CATALOGUE, type ErrorCode } from "../../src/errors";
import type { Schema, JsonSchema } from "../../src/validation/schema";
import type { EngineCatalogue } from "../../src/engine/catalogue";
import type { EngineDownloadRoute, EngineRoute } from "../../src/engine/route";
import type { AssetRegistry } from "../../src/money/assets";
import { ApiErrorObject, CHAIN_NAME } from "../../src/api/common-objects";
import { catalogueComponents } from "../../src/api/catalogue-components";
import { openApiWebhooks, WEBHOOKS_TAG } from "./openapi-webhooks";
import { reachable, type NamedSchema } from "../../src/api/response-schema";

/** What each error status means, for the document's responses (its codes: the catalogue's of that status). */
const ERROR_RESPONSES: Record<string, { name: string; description: string }> = {
  "400": { name: "BadRequest", description: "The request is invalid; `param` names the parameter at fault. Nothing changed." },
  "401": { name: "Unauthorized", description: "No API key, or an unknown one." },
  "402": { name: "RequestFailed", description: "The request was valid but could not be carried out. Nothing changed." },
  "403": { name: "Forbidden", description: "The API key lacks the route's scope (or a download link is expired or altered)." },
  "404": { name: "NotFound", description: "No such object for this account (another account's ids read the same), or no such route." },
  "409": { name: "Conflict", description: "A request with the same Idempotency-Key is still running." },
  "413": { name: "PayloadTooLarge", description: "The body exceeds 32 MB." },
  "415": { name: "UnsupportedMediaType", description: "A non-empty body was sent without `Content-Type: application/json`." },
  "429": { name: "TooManyRequests", description: "Over the route's rate limit; retry after `Retry-After` seconds." },
  "431": { name: "HeadersTooLarge", description: "The request line and headers exceed 16 KB." },
  "500": { name: "InternalError", description: "An error of the server (never for bad input); it has been logged." },
  "503": {
    name: "ServiceUnavailable",
    description:
      "Storage is unreachable for now (a restart, a failover, a full disk); nothing was done. Retry after `Retry-After` seconds, with the same Idempotency-Key.",
  },
};

function codesOf(status: number): ErrorCode[] {
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((c) => ERROR_CATALOGUE[c].status === status);
}

const REQUEST_ID_HEADER = { $ref: "#/components/headers/RequestId" };
const ERROR_SCHEMA = ApiErrorObject;

/**
 * The OpenAPI 3.1 document of the binding, derived from the route table, the same request
 * schemas the services validate with, and the response schemas the presenters' types come from
 * (each resource's `*-objects.ts`), so the document and the behaviour cannot disagree. The
 * catalogue gives the tags, the event types and the scopes, and the `webhooks` section (one entry
 * per event type, `openapi-webhooks.ts`); `assets` lists the registry's asset codes and chain
 * names as enums.
 */
export function buildOpenApi(
  routes: readonly EngineRoute[],
  downloads: readonly EngineDownloadRoute[],
  catalogue: EngineCatalogue,
  assets?: AssetRegistry,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const returned: NamedSchema<unknown>[] = [ERROR_SCHEMA];
  const usedTags = new Set<string>();
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    returned.push(route.returns);
    usedTags.add(route.tag);
    const parameters: unknown[] = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => pathParameter(m[1]!));
    if (route.query) parameters.push(...queryParameters(route.query.shape as Record<string, Schema<unknown>>));
    parameters.push({ $ref: "#/components/parameters/PayrailVersion" });
    if (route.method === "post") {
      parameters.push({ $ref: route.idempotencyRequired ? "#/components/parameters/IdempotencyKeyRequired" : "#/components/parameters/IdempotencyKey" });
    }
    const successHeaders: Record<string, unknown> = { "Request-Id": REQUEST_ID_HEADER, [VERSION_HEADER]: { $ref: "#/components/headers/PayrailVersion" } };
    if (route.method === "post") successHeaders["Idempotent-Replayed"] = { $ref: "#/components/headers/IdempotentReplayed" };
    const responses: Record<string, unknown> = {
      [String(route.successStatus ?? 200)]: {
        description: route.returns.definition.description ? String(route.returns.definition.description) : `The ${route.returns.name}`,
        headers: successHeaders,
        content: { "application/json": { schema: route.returns.json } },
      },
    };
    for (const status of errorStatuses(route))
      responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}${status === "402" ? operationSuffix(route) : ""}` };
    const operation: Record<string, unknown> = {
      operationId: operationId(route.method, path),
      summary: route.summary,
      description: describe(route),
      tags: [route.tag],
      security: [{ bearer: [] }],
      parameters,
      responses,
    };
    if (route.body) {
      const body = route.body.jsonSchema();
      operation.requestBody = {
        required: Array.isArray(body.required) && body.required.length > 0,
        content: { "application/json": { schema: body } },
      };
    }
    paths[path] = { ...paths[path], [route.method]: operation };
  }
  for (const route of downloads) {
    const path = route.path.replace(/\/\*$/, "/{key}");
    usedTags.add(route.tag);
    paths[path] = {
      get: {
        operationId: `download${operationId("", path)}`,
        summary: route.summary,
        description: `${route.summary}. The link needs no API key; it expires after an hour.`,
        tags: [route.tag],
        security: [],
        parameters: [
          { name: "key", in: "path", required: true, schema: { type: "string", minLength: 1 }, description: "The file's key, slashes included" },
          { name: "expires", in: "query", required: true, schema: { type: "string", pattern: "^[0-9]+$" }, description: "Unix seconds the link stops working" },
          { name: "signature", in: "query", required: true, schema: { type: "string", pattern: "^[0-9a-f]{64}$" }, description: "HMAC-SHA256, hex" },
        ],
        responses: {
          "200": {
            description: "The file, as an attachment",
            headers: { "Request-Id": REQUEST_ID_HEADER },
            content: { "text/csv": { schema: { type: "string" } } },
          },
          "403": { $ref: "#/components/responses/Forbidden" },
          "404": { $ref: "#/components/responses/NotFound" },
          "500": { $ref: "#/components/responses/InternalError" },
          "503": { $ref: "#/components/responses/ServiceUnavailable" },
        },
      },
    };
  }

  const hooks = openApiWebhooks(catalogue);
  returned.push(...hooks.schemas);
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of [...reachable(returned)].sort(([a], [b]) => a.localeCompare(b))) schemas[name] = schema.definition;
  Object.assign(schemas, catalogueComponents(catalogue, assets));

  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(ERROR_RESPONSES)) {
    // 402 is per route: the request_failed codes each one can answer
    if (status !== "402") responses[r.name] = errorResponse(status, r.description, codesOf(Number(status)));
  }
  for (const route of routes) {
    if (!route.failures?.length) continue;
    const r = ERROR_RESPONSES["402"]!;
    responses[r.name + operationSuffix(route)] = errorResponse("402", r.description, route.failures);
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "payrail",
      version: "1",
      description:
        "Payouts, swaps, limit orders, payment intents and signed webhooks over digital assets. " +
        "Authenticate with `Authorization: Bearer sk_test_…` (or `sk_live_…`). Every answer carries `Request-Id`, and `X-Request-Id`: " +
        "the client's own `X-Request-Id` when it sent a well-formed one (1 to 200 of `A-Za-z0-9._:-`), kept as the request's correlation id in the host's logs, else the `Request-Id`; " +
        "every error has the shape of the `Error` schema; every POST takes an `Idempotency-Key`; " +
        "request bodies are JSON (`Content-Type: application/json`). Dated API versions: `Payrail-Version` pins one " +
        `per request (default: the account's); this document describes every version up to ${LATEST_VERSION}.`,
      license: { name: "UNLICENSED", identifier: "UNLICENSED" },
    },
    servers: [{ url: "/", description: "The host serving this document" }],
    tags: catalogue.tags
      .filter((t) => usedTags.has(t.name))
      .map(({ name, description }) => ({ name, description }))
      .concat([WEBHOOKS_TAG])
      .sort((a, b) => a.name.localeCompare(b.name)),
    paths,
    webhooks: hooks.webhooks,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key: sk_test_… or sk_live_…" } },
      schemas,
      responses,
      headers: {
        RequestId: {
          description: "The request's id (`req_…`), on every answer; quote it when asking about a request",
          schema: { type: "string", pattern: "^req_[0-9a-z]+$" },
        },
        IdempotentReplayed: {
          description: "`true` when the answer is the stored answer of an earlier request with the same Idempotency-Key",
          schema: { type: "string", enum: ["true"] },
        },
        RetryAfter: { description: "Seconds to wait before retrying", schema: { type: "string", pattern: "^[0-9]+$" } },
        PayrailVersion: {
          description: "The API version the answer is in: the request's `Payrail-Version`, or the account's default",
          schema: { type: "string", enum: [...API_VERSIONS] },
        },
      },
      parameters: {
        PayrailVersion: {
          name: VERSION_HEADER,
          in: "header",
          required: false,
          schema: { type: "string", enum: [...API_VERSIONS] },
          description:
            `The API version to answer in (docs/versions.md); default: the account's (\`GET /v1/account\`). This document ` +
            `describes every version up to ${LATEST_VERSION}: a field a version added is optional and says from which version ` +
            `it is answered. An unknown version is 400 \`parameter_invalid\`.`,
        },
        IdempotencyKey: idempotencyParameter(false),
        IdempotencyKeyRequired: idempotencyParameter(true),
        ...hooks.parameters,
      },
    },
  };
}

function idempotencyParameter(required: boolean): Record<string, unknown> {
  return {
    name: "Idempotency-Key",
    in: "header",
    required,
    schema: { type: "string", minLength: 1, maxLength: 255 },
    description:
      "Makes the request safe to retry: a completed request with the same key, method, path and body is answered again " +
      "from storage (with `Idempotent-Replayed: true`) for 24 hours" +
      (required ? ". Required on this route." : "."),
  };
}

/** Statuses a route can answer besides its success. */
function errorStatuses(route: EngineRoute): string[] {
  const out = ["400", "401", "403", "404"];
  if (route.failures?.length) out.push("402");
  if (route.method === "post") out.push("409", "413", "415");
  if (route.rateLimit) out.push("429");
  out.push("431", "500", "503");
  return out.sort();
}

function operationSuffix(route: EngineRoute): string {
  return operationId(route.method, route.path.replace(/:([A-Za-z_]+)/g, "{$1}")).replace(/^./, (c) => c.toUpperCase());
}

function operationId(method: string, path: string): string {
  return `${method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ? ch.toUpperCase() : ""))}`;
}

function describe(route: EngineRoute): string {
  const parts = [route.description ?? `${route.summary}.`, `Requires scope \`${route.scope}\` (or a key without scopes).`];
  if (route.idempotencyRequired) parts.push("An `Idempotency-Key` header is required.");
  if (route.testModeOnly) parts.push("Test-mode keys only; live keys get 404.");
  if (route.rateLimit) parts.push(`Limited to ${route.rateLimit.limit} per ${route.rateLimit.windowMs / 1000} seconds per API key.`);
  return parts.join(" ");
}

function errorResponse(status: string, description: string, codes: readonly ErrorCode[]): Record<string, unknown> {
  const code = codes[0]!;
  const headers: Record<string, unknown> = { "Request-Id": REQUEST_ID_HEADER };
  if (status === "429" || status === "503") headers["Retry-After"] = { $ref: "#/components/headers/RetryAfter" };
  return {
    description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(", ")}.`,
    headers,
    content: {
      "application/json": {
        schema: ERROR_SCHEMA.json,
        example: {
          error: { type: ERROR_CATALOGUE[code].type, code, message: "A sentence saying what went wrong", request_id: "req_01jd5x3kq8b7m2c9v4n6p0r1s2" },
        },
      },
    },
  };
}

function pathParameter(name: string): Record<string, unknown> {
  if (name === "chain") return { name, in: "path", required: true, schema: { $ref: `#/components/schemas/${CHAIN_NAME}` }, description: "A chain name" };
  return { name, in: "path", required: true, schema: { type: "string", minLength: 1, maxLength: 255 }, description: "The object's id" };
}

function queryParameters(shape: Record<string, Schema<unknown>>): unknown[] {
  const out: unknown[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const json: JsonSchema = schema.jsonSchema();
    const { description, ...rest } = json;
    if (json.type === "array") {
      // Lists in a query: `name[]=a&name[]=b`; `name=a` and `name[0]=a` are read alike.
      out.push({
        name: `${name}[]`,
        in: "query",
        required: !schema.isOptional,
        style: "form",
        explode: true,
        schema: rest,
        description: `${description ? `${String(description)}. ` : ""}Repeat for several; also accepted as \`${name}=…\` (one value) and \`${name}[0]=…\`, \`${name}[1]=…\``,
      });
    } else {
      const parameter: Record<string, unknown> = { name, in: "query", required: !schema.isOptional, schema: rest };
      if (description) parameter.description = description;
      out.push(parameter);
    }
  }
  return out;
}

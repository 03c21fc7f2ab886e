import { ERROR_CATALOGUE } from "../../src/errors";
import type { Schema } from "../../src/validation/schema";
import type { DownloadRouteDefinition, RouteDefinition } from "../../src/engine/route";

/**
 * The OpenAPI 3.1 document of the binding, derived from the route table and the same request
 * schemas the services validate with, so the document and the behaviour cannot disagree.
 */
export function buildOpenApi(
  routes: readonly RouteDefinition[],
  downloads: readonly DownloadRouteDefinition[] = [],
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const parameters: unknown[] = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    if (route.query) {
      for (const [name, schema] of Object.entries(route.query.shape as Record<string, Schema<unknown>>)) {
        const json = schema.jsonSchema();
        if (json.type === "array") {
          // Lists in a query: `name[]=a&name[]=b`; `name=a` and `name[0]=a` are read alike.
          parameters.push({
            name: `${name}[]`,
            in: "query",
            required: !schema.isOptional,
            style: "form",
            explode: true,
            schema: json,
            description: `${json.description ? `${String(json.description)}. ` : ""}Repeat for several; also accepted as \`${name}=…\` (one value) and \`${name}[0]=…\`, \`${name}[1]=…\``,
          });
        } else {
          parameters.push({ name, in: "query", required: !schema.isOptional, schema: json });
        }
      }
    }
    if (route.method === "post") {
      parameters.push({
        name: "Idempotency-Key",
        in: "header",
        required: route.idempotencyRequired ?? false,
        schema: { type: "string", minLength: 1, maxLength: 255 },
      });
    }
    const operation: Record<string, unknown> = {
      operationId: `${route.method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ? ch.toUpperCase() : ""))}`,
      summary: route.summary,
      tags: [route.tag],
      security: [{ bearer: [] }],
      parameters,
      responses: {
        [String(route.successStatus ?? 200)]: {
          description: `The ${route.returns}`,
          content: { "application/json": { schema: { type: "object" } } },
        },
        default: {
          description: "An error of the catalogue",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
    };
    if (route.body) {
      operation.requestBody = { required: true, content: { "application/json": { schema: route.body.jsonSchema() } } };
    }
    paths[path] = { ...paths[path], [route.method]: operation };
  }
  for (const route of downloads) {
    const path = route.path.replace(/\/\*$/, "/{key}");
    paths[path] = {
      get: {
        operationId: `download${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ? ch.toUpperCase() : ""))}`,
        summary: route.summary,
        tags: [route.tag],
        security: [],
        parameters: [
          { name: "key", in: "path", required: true, schema: { type: "string" }, description: "The file's key, slashes included" },
          { name: "expires", in: "query", required: true, schema: { type: "string" }, description: "Unix seconds the link stops working" },
          { name: "signature", in: "query", required: true, schema: { type: "string" }, description: "HMAC-SHA256, hex" },
        ],
        responses: {
          "200": { description: "The file, as an attachment", content: { "text/csv": { schema: { type: "string" } } } },
          default: {
            description: "An error of the catalogue (403 permission_denied for an expired or altered link)",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
          },
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "payrail", version: "1", description: "Payouts, swaps, limit orders, payment intents and webhooks" },
    servers: [{ url: "/" }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "sk_test_… or sk_live_…" } },
      schemas: {
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["type", "code", "message", "request_id"],
              properties: {
                type: { type: "string", enum: [...new Set(Object.values(ERROR_CATALOGUE).map((e) => e.type))] },
                code: { type: "string", enum: Object.keys(ERROR_CATALOGUE) },
                message: { type: "string" },
                param: { type: "string" },
                request_id: { type: "string" },
                errors: {
                  type: "array",
                  items: {
                    type: "object",
                    properties: {
                      row: { type: "integer" },
                      param: { type: "string" },
                      code: { type: "string" },
                      message: { type: "string" },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}

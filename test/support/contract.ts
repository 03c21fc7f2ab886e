import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ValidateFunction } from "ajv";

/**
 * Checks answers against the OpenAPI document the app serves: the status is one the operation
 * documents, the body validates against that response's schema, and the documented headers are
 * there (`Request-Id` always, `Retry-After` on 429, `Idempotent-Replayed` only as `true`). The
 * HTTP helpers of `test/support/engine.ts` run it on every answer, so every HTTP suite checks
 * the document against what the code really says.
 */
export interface ContractChecker {
  /** Problems with one answer; empty when it matches the document. */
  problems(method: string, url: string, status: number, headers: Headers, body: unknown): string[];
  /** `(METHOD template status)` of every answer checked so far. */
  readonly seen: Set<string>;
}

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Ref & Response> }>>;
  components: { responses: Record<string, Response> };
};
type Ref = { $ref?: string };
type Response = { headers?: Record<string, unknown>; content?: Record<string, { schema: Ref & Record<string, unknown> }> };

const DOC_ID = "https://payrail.test/openapi.json";

/** A checker for `doc` (`test/support/engine.ts` keeps one per app). */
export function contractChecker(doc: unknown): ContractChecker {
  return buildChecker(doc as Doc);
}

function buildChecker(doc: Doc): ContractChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc as object, DOC_ID);
  const compiled = new Map<string, ValidateFunction>();
  const validator = (schema: Ref & Record<string, unknown>): ValidateFunction => {
    const ref = schema.$ref ?? "";
    let v = compiled.get(ref);
    if (!v) {
      v = ajv.compile(ref ? { $ref: DOC_ID + ref } : schema);
      if (ref) compiled.set(ref, v);
    }
    return v;
  };
  // templates with fewer parameters first, so /v1/payouts/batches/{id} wins over /v1/payouts/{id}/…
  const templates = Object.keys(doc.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      regex: new RegExp(`^${template.replace(/\{key\}$/, "(.*)").replace(/\{[^}]+\}/g, "([^/]+)")}$`),
    }))
    .sort((a, b) => a.params - b.params);
  const seen = new Set<string>();

  return {
    seen,
    problems(method, url, status, headers, body) {
      const out: string[] = [];
      const m = method.toLowerCase();
      const pathname = new URL(url, "http://x").pathname;
      if (!headers.get("request-id")?.match(/^req_[0-9a-z]+$/)) out.push(`no Request-Id header (${headers.get("request-id")})`);
      if (pathname === "/v1/openapi.json" || !pathname.startsWith("/v1/")) return out;
      const match = templates.find((t) => t.regex.test(pathname) && doc.paths[t.template]![m]);
      if (!match) {
        // no such route: the catalogue's 404 (or 401 first, without a key)
        if (status !== 404 && status !== 401) out.push(`${method} ${pathname}: no documented route answered ${status}`);
        if (!isError(body)) out.push(`${method} ${pathname}: ${status} is not in the error shape`);
        return out;
      }
      const operation = doc.paths[match.template]![m]!;
      let response = operation.responses[String(status)];
      seen.add(`${method.toUpperCase()} ${match.template} ${status}`);
      if (!response) return [...out, `${method} ${match.template}: status ${status} is not documented`];
      if (response.$ref) response = doc.components.responses[response.$ref.split("/").pop()!]!;
      if (status === 429 && !headers.get("retry-after")) out.push("429 without Retry-After");
      const replayed = headers.get("idempotent-replayed");
      if (replayed !== null && (replayed !== "true" || m !== "post")) out.push(`Idempotent-Replayed: ${replayed} on ${method}`);
      const json = response.content?.["application/json"];
      if (!json) return out;
      const validate = validator(json.schema);
      if (!validate(body)) {
        out.push(
          `${method} ${match.template} ${status}: the body does not match the document: ` +
            ajv.errorsText(validate.errors, { separator: "; " }) +
            ` in ${JSON.stringify(body).slice(0, 600)}`,
        );
      }
      return out;
    },
  };
}

function isError(body: unknown): boolean {
  const e = (body as { error?: { code?: unknown; type?: unknown; message?: unknown } } | null)?.error;
  return typeof e?.code === "string" && typeof e.type === "string" && typeof e.message === "string";
}

import { ok, type Result } from "neverthrow";
import { o } from "../../api/response-schema";
import { type ApiError, fail } from "../../errors";
import { s } from "../../validation/schema";

/**
 * Custom headers of a webhook endpoint: sent on every delivery to it, beside the engine's own.
 * Names are HTTP tokens, kept lower-case (HTTP names are case-insensitive, so `X-Tenant` and
 * `x-tenant` are one header); values are printable text. The engine's own headers and those
 * that would change how the request travels cannot be set.
 */

/** Headers an endpoint carries at most, and their size in all (names and values). */
export const MAX_HEADERS = 20;
export const MAX_HEADER_BYTES = 4096;
const MAX_NAME = 64;
const MAX_VALUE = 1000;

/** An HTTP field name (RFC 9110 token). */
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Printable ASCII and tabs: no line breaks, so nothing can be smuggled into the request. */
const VALUE = /^[\t\x20-\x7e]*$/;

/** Names an endpoint may not set: the engine's own, or how the request travels. */
const RESERVED = new Set([
  "host",
  "content-type",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
  "user-agent",
]);
/** Prefixes reserved likewise: `service-*` (signature, event, delivery, attempt), `webhook-*` (Standard Webhooks), `proxy-*`. */
const RESERVED_PREFIXES = ["service-", "webhook-", "proxy-"];

/**
 * Names whose value the endpoint object never shows (null in its place): credentials a receiver
 * checks. The value is still sent on every delivery.
 */
const SENSITIVE = /auth|cookie|token|secret|password|passwd|key|credential|session|signature/i;

/** `headers` of a create (every value text) or an update (`""` removes a header). */
export const headersParam = () =>
  s
    .record(s.string({ min: 1, max: MAX_NAME, pattern: NAME }), s.string({ max: MAX_VALUE, pattern: VALUE }))
    .describe(
      `Headers sent on every delivery (up to ${MAX_HEADERS}, ${MAX_HEADER_BYTES} bytes in all); not Host, Content-Type, Content-Length, User-Agent, hop-by-hop, Service-*, Webhook-* or Proxy-*. On update, given headers are set and "" removes one`,
    );

/** `headers` on the endpoint object: values of credential-like names (authorization, token, …) shown as null. */
export const headersObject = o.record(o.nullable(o.string({ description: "The value; null for a credential-like name (never shown)" })), {
  description: "Headers sent on every delivery, names lower-case ({} when none); values of credential-like names are null",
});

/**
 * The headers after applying `given` to `current` (create: `current` empty): names lower-cased,
 * `""` removes one; refused when a name is reserved or the result is too many or too big.
 */
export function applyHeaders(current: Record<string, string> | undefined, given: Record<string, string>): Result<Record<string, string>, ApiError> {
  const out: Record<string, string> = { ...current };
  for (const [rawName, value] of Object.entries(given)) {
    const name = rawName.toLowerCase();
    if (RESERVED.has(name) || RESERVED_PREFIXES.some((p) => name.startsWith(p))) {
      return fail("parameter_invalid", `headers.${rawName} is set by the engine or by HTTP itself and cannot be set`, { param: `headers.${rawName}` });
    }
    if (value === "") delete out[name];
    else out[name] = value;
  }
  const names = Object.keys(out).sort();
  if (names.length > MAX_HEADERS) return fail("parameter_invalid", `headers: at most ${MAX_HEADERS} headers`, { param: "headers" });
  const bytes = names.reduce((n, name) => n + name.length + out[name]!.length, 0);
  if (bytes > MAX_HEADER_BYTES) return fail("parameter_invalid", `headers: at most ${MAX_HEADER_BYTES} bytes of names and values in all`, { param: "headers" });
  return ok(Object.fromEntries(names.map((name) => [name, out[name]!])));
}

/** What the endpoint object shows of its headers (see `SENSITIVE`). */
export function presentHeaders(headers: Record<string, string> | undefined): Record<string, string | null> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name, SENSITIVE.test(name) ? null : value]));
}

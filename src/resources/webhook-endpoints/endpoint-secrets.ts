import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import type { RandomSource } from "../../ids";
import { newSecret, secretFormatError, type SignatureScheme } from "../../events/signature-schemes";
import { type EndpointSecret, schemeOf, signingSecrets, type WebhookEndpointDoc } from "./webhook-endpoint-doc";

/**
 * An endpoint's signing secrets: the one a client supplies (or one generated), a rotation's
 * overlap, and what a change of scheme asks of them (docs/webhooks.md, "Secrets").
 */

/** At most this many secrets sign at once: the current one and four rotated ones still in their overlap. */
export const MAX_SIGNING_SECRETS = 5;

/** The secret a client supplied, when it suits `scheme`; otherwise a new one for it. */
export function chosenSecret(scheme: SignatureScheme, supplied: string | undefined, random: RandomSource): Result<string, ApiError> {
  if (supplied === undefined) return ok(newSecret(scheme, random));
  const why = secretFormatError(scheme, supplied);
  return why === null ? ok(supplied) : fail("parameter_invalid", `secret ${why} (signature_scheme ${scheme})`, { param: "secret" });
}

/**
 * The secrets after a rotation at `now` to `secret`: it becomes the current one; the one that was
 * current signs beside it until `now + overlapMs` (at once gone with 0); older ones keep their own
 * expiry; expired ones are dropped, and beyond `MAX_SIGNING_SECRETS` the ones expiring first are.
 */
export function rotatedSecrets(doc: WebhookEndpointDoc, secret: string, now: number, overlapMs: number): Result<EndpointSecret[], ApiError> {
  if (signingSecrets(doc, now).includes(secret)) {
    return fail("parameter_invalid", "secret is already one of the endpoint's signing secrets; supply a new one", { param: "secret" });
  }
  const previous = doc.secrets
    .map((s) => (s.expiresAt === null ? { ...s, expiresAt: now + overlapMs } : s))
    .filter((s) => s.expiresAt! > now)
    .sort((a, b) => b.expiresAt! - a.expiresAt!)
    .slice(0, MAX_SIGNING_SECRETS - 1);
  return ok([{ secret, expiresAt: null }, ...previous]);
}

/** Whether the endpoint may switch to `scheme` at `now`: every secret still signing must suit it. */
export function schemeChange(doc: WebhookEndpointDoc, scheme: SignatureScheme, now: number): Result<void, ApiError> {
  if (scheme === schemeOf(doc)) return ok(undefined);
  const unsuited = signingSecrets(doc, now).some((secret) => secretFormatError(scheme, secret) !== null);
  if (!unsuited) return ok(undefined);
  return fail(
    "parameter_invalid",
    `The endpoint's signing secrets do not suit signature_scheme ${scheme}; first rotate_secret with a secret that suits both schemes ` +
      "(whsec_ + base64 of 24 to 64 bytes) and expire_previous_in: 0",
    { param: "signature_scheme" },
  );
}

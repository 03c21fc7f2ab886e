import { createHmac } from "node:crypto";
import type { RandomSource } from "../ids";
import { signatureHeader } from "./signing";

/**
 * The two ways an endpoint's deliveries are signed (docs/decisions.md §11), chosen per endpoint:
 *
 * - `stripe` (default): `Service-Signature: t=…,v1=<hex>` (§6), the whole secret string is the
 *   HMAC key, so the `stripe` package's `webhooks.constructEvent` verifies it;
 * - `standard`: Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 *   `webhook-signature: v1,<base64>`), the key is the base64 after `whsec_`, so the
 *   `standardwebhooks` libraries verify it.
 */
export const SIGNATURE_SCHEMES = ["stripe", "standard"] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

const PREFIX = "whsec_";
/** Standard Webhooks: the key is 24 to 64 random bytes. */
const STANDARD_KEY_BYTES = { min: 24, max: 64 } as const;
/** A stripe-scheme secret: `whsec_` + 24 to 128 characters of base64 or base64url (a standard secret is one too). */
const STRIPE_SECRET = /^whsec_[A-Za-z0-9+/=_-]{24,128}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A new secret for `scheme`: 32 random bytes after `whsec_`, base64url for stripe, base64 (padded) for standard. */
export function newSecret(scheme: SignatureScheme, random: RandomSource): string {
  const key = Buffer.from(random(32));
  return PREFIX + (scheme === "standard" ? key.toString("base64") : key.toString("base64url"));
}

/** The key bytes of a standard secret, or null when `secret` is not `whsec_` + canonical base64 of 24 to 64 bytes. */
function standardKey(secret: string): Buffer | null {
  if (!secret.startsWith(PREFIX)) return null;
  const text = secret.slice(PREFIX.length);
  if (!BASE64.test(text) || text.length % 4 !== 0) return null;
  const key = Buffer.from(text, "base64");
  if (key.toString("base64") !== text) return null;
  return key.length >= STANDARD_KEY_BYTES.min && key.length <= STANDARD_KEY_BYTES.max ? key : null;
}

/** Why `secret` cannot sign under `scheme` (a sentence for a `parameter_invalid`), or null when it can. */
export function secretFormatError(scheme: SignatureScheme, secret: string): string | null {
  if (scheme === "standard") {
    return standardKey(secret) ? null : "must be whsec_ followed by the base64 (with padding) of 24 to 64 random bytes";
  }
  return STRIPE_SECRET.test(secret) ? null : "must be whsec_ followed by 24 to 128 base64 or base64url characters";
}

/** A delivery about to be signed: the event's id (the Standard Webhooks message id) and the exact body. */
export interface SignedMessage {
  id: string;
  body: string;
}

/** `webhook-signature`: `v1,<base64 HMAC-SHA256(key, "<id>.<t>.<body>")>` per secret, space-separated, newest first. */
export function standardSignature(message: SignedMessage, secrets: readonly string[], timestamp: number): string {
  if (secrets.length === 0) throw new RangeError("at least one secret signs a delivery");
  return secrets
    .map((secret) => {
      const key = standardKey(secret);
      if (!key) throw new RangeError("a standard-scheme secret is whsec_ + base64");
      return `v1,${createHmac("sha256", key).update(`${message.id}.${timestamp}.`).update(message.body).digest("base64")}`;
    })
    .join(" ");
}

/** The signature headers of one attempt under `scheme`, signed with every secret still signing at `timestamp` (Unix seconds). */
export function signatureHeaders(scheme: SignatureScheme, message: SignedMessage, secrets: readonly string[], timestamp: number): Record<string, string> {
  if (scheme === "stripe") return { "Service-Signature": signatureHeader(message.body, secrets, timestamp) };
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": standardSignature(message, secrets, timestamp),
  };
}

import { createHmac, timingSafeEqual } from "node:crypto";

/** The seed's limit: a signature older (or, here, newer) than five minutes is refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const HEX_DIGEST = /^[0-9a-f]{64}$/;
const HEADER_PART = /^([a-z][a-z0-9]*)=([^\s,=]+)$/;

/** HMAC-SHA256 of `"<t>.<raw body>"` under `secret` (the whole secret string is the key). */
function digest(secret: string, timestamp: number, body: string | Uint8Array): Buffer {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
}

/**
 * The `Service-Signature` header of docs/decisions.md §6, Stripe's scheme byte for byte:
 * `t=<unix seconds>,v1=<lowercase hex>` with one `v1` per secret (newest first during a
 * rotation), no spaces, so `Stripe.webhooks.constructEvent` verifies it with either secret.
 */
export function signatureHeader(body: string, secrets: readonly string[], timestamp: number): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError("timestamp must be Unix seconds");
  if (secrets.length === 0) throw new RangeError("at least one secret signs a delivery");
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${digest(secret, timestamp, body).toString("hex")}`)].join(",");
}

export type SignatureVerification =
  | { valid: true; timestamp: number }
  | {
      valid: false;
      reason: "header_missing" | "header_malformed" | "signature_mismatch" | "timestamp_too_old" | "timestamp_in_future";
    };

export interface VerifyOptions {
  /** How far the timestamp may be from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's time now, in epoch milliseconds (`Date.now()` in a receiver, the clock in tests). */
  now: number;
}

/**
 * Verifies a webhook delivery for a receiver: `rawBody` is the request body exactly as received
 * (never re-serialised JSON), `header` the `Service-Signature` value, `secrets` the endpoint's
 * signing secret(s) (pass both during a rotation). Valid when some `v1` matches some secret,
 * compared in constant time, and the timestamp is within the tolerance of now in either
 * direction (a future timestamp is refused too, unlike Stripe's verifier).
 *
 * ```ts
 * const check = verifyWebhookSignature(rawBody, req.headers["service-signature"], process.env.WHSEC!, { now: Date.now() });
 * if (!check.valid) return res.status(400).end(check.reason);
 * ```
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secrets: string | readonly string[],
  options: VerifyOptions,
): SignatureVerification {
  if (header === null || header === undefined || header === "") return { valid: false, reason: "header_missing" };
  let timestamp: number | null = null;
  const given: Buffer[] = [];
  for (const part of header.split(",")) {
    const m = HEADER_PART.exec(part);
    if (!m) return { valid: false, reason: "header_malformed" };
    const [, scheme, value] = m as unknown as [string, string, string];
    if (scheme === "t") {
      if (timestamp !== null || !/^[0-9]{1,12}$/.test(value)) return { valid: false, reason: "header_malformed" };
      timestamp = Number(value);
    } else if (scheme === "v1" && HEX_DIGEST.test(value)) {
      given.push(Buffer.from(value, "hex"));
    }
    // other schemes (a future v2) are ignored, as Stripe's verifier does
  }
  if (timestamp === null) return { valid: false, reason: "header_malformed" };
  const keys = typeof secrets === "string" ? [secrets] : secrets;
  let matched = false;
  for (const secret of keys) {
    const expected = digest(secret, timestamp, rawBody);
    // every pair is compared (no early exit), each in constant time over 32 bytes
    for (const candidate of given) matched = timingSafeEqual(expected, candidate) || matched;
  }
  if (!matched) return { valid: false, reason: "signature_mismatch" };
  const tolerance = options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const now = Math.floor(options.now / 1000);
  if (now - timestamp > tolerance) return { valid: false, reason: "timestamp_too_old" };
  if (timestamp - now > tolerance) return { valid: false, reason: "timestamp_in_future" };
  return { valid: true, timestamp };
}

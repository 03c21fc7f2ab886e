import { fc, test } from "@fast-check/vitest";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { signatureHeader, verifyWebhookSignature } from "../../src/events/signing";

const NOW = Date.UTC(2026, 5, 1, 12);
const T = Math.floor(NOW / 1000);
const secretArbFallback = "whsec_not_the_one";
const secretArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `whsec_${Buffer.from(b).toString("base64url")}`);
const bodyArb = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.jsonValue().map((v) => JSON.stringify({ id: "evt_01", object: "event", data: { object: v } })),
);

describe("webhook signatures (Stripe's scheme, docs/decisions.md §6)", () => {
  test.prop([bodyArb, fc.array(secretArb, { minLength: 1, maxLength: 3 }), fc.integer({ min: -300, max: 300 })])(
    "every secret of the header verifies the body, within five minutes either way",
    (body, secrets, skew) => {
      const header = signatureHeader(body, secrets, T + skew);
      expect(header).not.toMatch(/\s/);
      expect(header.split(",")).toHaveLength(secrets.length + 1);
      for (const secret of secrets) {
        expect(verifyWebhookSignature(body, header, secret, { now: NOW })).toEqual({ valid: true, timestamp: T + skew });
        expect(verifyWebhookSignature(Buffer.from(body), header, [secretArbFallback, secret], { now: NOW }).valid).toBe(true);
      }
    },
  );

  test.prop([fc.jsonValue().map((v) => JSON.stringify({ id: "evt_x", object: "event", data: { object: v } })), secretArb, secretArb])(
    "the stripe package's constructEvent verifies what the engine signs, with the new and the old secret",
    (body, current, previous) => {
      const header = signatureHeader(body, [current, previous], T);
      for (const secret of [current, previous]) {
        const event = Stripe.webhooks.constructEvent(body, header, secret, 300, undefined, NOW);
        expect(event.id).toBe("evt_x");
      }
      expect(() => Stripe.webhooks.constructEvent(body, header, `${current}x`, 300, undefined, NOW)).toThrow();
    },
  );

  test.prop([bodyArb, secretArb, fc.nat(), fc.integer({ min: 1, max: 255 })])("any change to one byte of the body is refused", (body, secret, at, delta) => {
    fc.pre(body.length > 0);
    const header = signatureHeader(body, [secret], T);
    const bytes = Buffer.from(body);
    const i = at % bytes.length;
    bytes[i] = (bytes[i]! + delta) % 256;
    expect(verifyWebhookSignature(bytes, header, secret, { now: NOW })).toEqual({ valid: false, reason: "signature_mismatch" });
  });

  test.prop([bodyArb, secretArb, fc.integer({ min: 301, max: 10_000_000 }), fc.boolean()])(
    "timestamps more than five minutes old or ahead are refused, even correctly signed",
    (body, secret, off, future) => {
      const header = signatureHeader(body, [secret], T + (future ? off : -off));
      expect(verifyWebhookSignature(body, header, secret, { now: NOW })).toEqual({
        valid: false,
        reason: future ? "timestamp_in_future" : "timestamp_too_old",
      });
      expect(verifyWebhookSignature(body, header, secret, { now: NOW, toleranceSeconds: off }).valid).toBe(true);
    },
  );

  it("refuses missing, malformed, uppercase, spaced and wrong-secret headers", () => {
    const body = '{"id":"evt_1"}';
    const header = signatureHeader(body, ["whsec_a"], T);
    const check = (h: string | undefined, secret = "whsec_a") => verifyWebhookSignature(body, h, secret, { now: NOW });
    expect(check(undefined)).toEqual({ valid: false, reason: "header_missing" });
    expect(check("")).toEqual({ valid: false, reason: "header_missing" });
    expect(check("v1=abc")).toEqual({ valid: false, reason: "header_malformed" });
    expect(check(`t=${T},t=${T},${header.split(",")[1]}`)).toEqual({ valid: false, reason: "header_malformed" });
    expect(check(header.replace(",", ", "))).toEqual({ valid: false, reason: "header_malformed" });
    expect(check(header.toUpperCase().replace("T=", "t=").replace("V1=", "v1="))).toEqual({ valid: false, reason: "signature_mismatch" });
    expect(check(header, "whsec_b")).toEqual({ valid: false, reason: "signature_mismatch" });
    expect(check(`${header},v0=${"0".repeat(64)}`)).toEqual({ valid: true, timestamp: T }); // unknown schemes are ignored
    expect(check(`t=${T},v1=${"0".repeat(64)},${header.split(",")[1]}`)).toEqual({ valid: true, timestamp: T });
  });
});

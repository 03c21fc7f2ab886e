import { fc, test } from "@fast-check/vitest";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { describe, expect, it, vi } from "vitest";
import { newSecret, secretFormatError, signatureHeaders, SIGNATURE_SCHEMES } from "../../src/events/signature-schemes";

const NOW = Date.UTC(2026, 5, 1, 12);
const T = Math.floor(NOW / 1000);
const standardSecretArb = fc.uint8Array({ minLength: 24, maxLength: 64 }).map((b) => `whsec_${Buffer.from(b).toString("base64")}`);
const bodyArb = fc.jsonValue().map((v) => JSON.stringify({ id: "evt_x", object: "event", data: { object: v } }));
const idArb = fc.stringMatching(/^evt_[0-9a-z]{26}$/);

/** Runs `fn` with Date.now() at the engine's time (standardwebhooks checks the timestamp against it). */
function at<T>(now: number, fn: () => T): T {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(now);
  try {
    return fn();
  } finally {
    vi.useRealTimers();
  }
}

describe("signature schemes (docs/decisions.md §11)", () => {
  test.prop([idArb, bodyArb, fc.array(standardSecretArb, { minLength: 1, maxLength: 5 }), fc.integer({ min: -290, max: 290 })])(
    "the standardwebhooks package verifies what the standard scheme signs, with every signing secret, and refuses other secrets",
    (id, body, secrets, skew) => {
      const headers = signatureHeaders("standard", { id, body }, secrets, T + skew);
      expect(headers).toEqual({ "webhook-id": id, "webhook-timestamp": String(T + skew), "webhook-signature": expect.any(String) });
      expect(headers["webhook-signature"]!.split(" ")).toHaveLength(secrets.length);
      at(NOW, () => {
        for (const secret of secrets) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
        const other = newSecret("standard", () => new Uint8Array(32).fill(7));
        if (!secrets.includes(other)) expect(() => new Webhook(other).verify(body, headers)).toThrow();
        expect(() => new Webhook(secrets[0]!).verify(`${body} `, headers)).toThrow();
      });
    },
  );

  test.prop([bodyArb, standardSecretArb, fc.uint8Array({ minLength: 32, maxLength: 32 })])(
    "the stripe scheme is Stripe's: constructEvent verifies it with a generated secret or a standard-format one",
    (body, standard, bytes) => {
      const generated = newSecret("stripe", () => bytes);
      const headers = signatureHeaders("stripe", { id: "evt_x", body }, [generated, standard], T);
      expect(Object.keys(headers)).toEqual(["Service-Signature"]);
      for (const secret of [generated, standard])
        expect(Stripe.webhooks.constructEvent(body, headers["Service-Signature"]!, secret, 300, undefined, NOW).id).toBe("evt_x");
    },
  );

  test.prop([fc.constantFrom(...SIGNATURE_SCHEMES), fc.uint8Array({ minLength: 32, maxLength: 32 })])(
    "a generated secret suits its scheme",
    (scheme, bytes) => {
      expect(
        secretFormatError(
          scheme,
          newSecret(scheme, () => bytes),
        ),
      ).toBeNull();
    },
  );

  test.prop([fc.uint8Array({ minLength: 0, maxLength: 80 })])("a standard secret is whsec_ + canonical base64 of exactly 24 to 64 bytes", (bytes) => {
    const base64 = Buffer.from(bytes).toString("base64");
    const suits = bytes.length >= 24 && bytes.length <= 64;
    expect(secretFormatError("standard", `whsec_${base64}`) === null).toBe(suits);
    // so a standard secret always suits the stripe scheme too
    if (suits) expect(secretFormatError("stripe", `whsec_${base64}`)).toBeNull();
    expect(secretFormatError("standard", base64)).not.toBeNull(); // the prefix is required
    if (bytes.length >= 24) expect(secretFormatError("standard", `whsec_${Buffer.from(bytes).toString("base64url")}x`)).not.toBeNull();
  });

  it.each([
    ["stripe", "whsec_short"],
    ["stripe", `whsec_${"a".repeat(129)}`],
    ["stripe", `sk_${"a".repeat(40)}`],
    ["stripe", `whsec_${"a".repeat(30)} `],
    ["standard", `whsec_${Buffer.alloc(32).toString("base64url")}`],
    ["standard", `whsec_${Buffer.alloc(32).toString("base64").replace(/=+$/, "")}`],
    ["standard", `whsec_${Buffer.alloc(23).toString("base64")}`],
    ["standard", `whsec_${Buffer.alloc(65).toString("base64")}`],
  ] as const)("refuses a %s secret %j", (scheme, secret) => {
    expect(secretFormatError(scheme, secret)).toMatch(/^must be whsec_/);
  });
});

import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { MAX_SIGNING_SECRETS, rotatedSecrets } from "../../../src/resources/webhook-endpoints/endpoint-secrets";
import { signingSecrets, type WebhookEndpointDoc } from "../../../src/resources/webhook-endpoints/webhook-endpoint-doc";

const HOUR = 3_600_000;
type Step = { op: "advance"; ms: number } | { op: "rotate"; overlapMs: number };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 48 * HOUR }) }),
  fc.record({ op: fc.constant("rotate" as const), overlapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 7 * 24 * HOUR })) }),
);

function endpoint(secret: string): WebhookEndpointDoc {
  return {
    id: "we_x",
    state: "enabled",
    url: "https://example.com/hooks",
    enabledEvents: ["*"],
    description: null,
    livemode: false,
    created: 0,
    secrets: [{ secret, expiresAt: null }],
  };
}

describe("a rotation's overlap and the cap on signing secrets", () => {
  test.prop([fc.array(stepArb, { maxLength: 40 })])(
    "the newest secret signs first; a rotated one signs until its chosen expiry unless the cap drops it, and the cap drops only what it must, expiring first",
    (steps) => {
      let now = 1_000_000;
      let doc = endpoint("whsec_s0");
      /** When each replaced secret was to stop signing. */
      const expiry = new Map<string, number>();
      let n = 0;
      for (const step of steps) {
        if (step.op === "advance") {
          now += step.ms;
        } else {
          const before = signingSecrets(doc, now);
          const next = `whsec_s${++n}`;
          doc = { ...doc, secrets: rotatedSecrets(doc, next, now, step.overlapMs)._unsafeUnwrap() };
          expiry.set(before[0]!, now + step.overlapMs);
          const after = signingSecrets(doc, now);
          const livePrevious = before.filter((s) => expiry.get(s)! > now);
          // nothing dropped unless more than the cap were live
          expect(after).toHaveLength(1 + Math.min(livePrevious.length, MAX_SIGNING_SECRETS - 1));
          // the ones dropped expire no later than any kept
          const kept = after.slice(1).map((s) => expiry.get(s)!);
          for (const dropped of livePrevious.filter((s) => !after.includes(s))) expect(expiry.get(dropped)!).toBeLessThanOrEqual(Math.min(...kept));
        }
        const signing = signingSecrets(doc, now);
        expect(signing[0]).toBe(`whsec_s${n}`);
        expect(signing.length).toBeLessThanOrEqual(MAX_SIGNING_SECRETS);
        for (const s of signing.slice(1)) expect(expiry.get(s)!).toBeGreaterThan(now);
      }
    },
  );

  test.prop([fc.integer({ min: 0, max: 5 })])("refuses to rotate to a secret that already signs, changing nothing", (rotations) => {
    let doc = endpoint("whsec_s0");
    for (let i = 1; i <= rotations; i++) doc = { ...doc, secrets: rotatedSecrets(doc, `whsec_s${i}`, 0, HOUR)._unsafeUnwrap() };
    for (const secret of signingSecrets(doc, 0)) {
      expect(rotatedSecrets(doc, secret, 0, HOUR)._unsafeUnwrapErr()).toMatchObject({ code: "parameter_invalid", param: "secret" });
    }
  });
});

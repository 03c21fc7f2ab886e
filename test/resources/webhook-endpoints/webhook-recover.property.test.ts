import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { failedForTheWindow, failingSinceAfter } from "../../../src/resources/webhook-endpoints/endpoint-health";
import { recoverable } from "../../../src/resources/webhook-endpoints/webhook-resend-service";

/** One attempt in a generated log: which event, whether it failed, and whether its retry is still to come. */
const attemptArb = fc.record({ event: fc.integer({ min: 0, max: 7 }), failed: fc.boolean(), pendingRetry: fc.boolean() });

describe("recover and endpoint health", () => {
  test.prop([fc.array(attemptArb, { maxLength: 60 })])(
    "recover re-sends exactly the events whose last attempt failed and has no retry to come, each once, in order of first appearance",
    (attempts) => {
      const now = 1_000_000;
      // attempts in the order they were made, as the log lists them oldest first
      const entries = attempts.map((a) => ({
        eventId: `evt_${a.event}`,
        status: a.failed ? "failed" : "succeeded",
        nextAttemptAt: a.failed ? (a.pendingRetry ? now + 1 : now - 1) : null,
      }));
      const chosen = recoverable(entries, now);
      expect(new Set(chosen).size).toBe(chosen.length);
      const firstSeen = [...new Set(attempts.map((a) => `evt_${a.event}`))];
      const expected = firstSeen.filter((id) => {
        const last = attempts.filter((a) => `evt_${a.event}` === id).at(-1)!;
        return last.failed && !last.pendingRetry;
      });
      expect(chosen).toEqual(expected);
    },
  );

  test.prop([
    fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
    fc.array(fc.record({ at: fc.integer({ min: 0, max: 50 }), succeeded: fc.boolean() })),
  ])(
    "failingSince is the first failure after the last success (or kept when none succeeded since), whatever order the attempts come in",
    (current, attempts) => {
      const since = failingSinceAfter(current, attempts);
      const sorted = [...attempts].sort((a, b) => a.at - b.at || Number(a.succeeded) - Number(b.succeeded));
      const lastSuccess = sorted.map((a) => a.succeeded).lastIndexOf(true);
      if (lastSuccess === -1) {
        expect(since).toBe(current ?? sorted.find((a) => !a.succeeded)?.at ?? null);
      } else {
        expect(since).toBe(sorted.slice(lastSuccess + 1).find((a) => !a.succeeded)?.at ?? null);
      }
      expect(failingSinceAfter(current, [...attempts].reverse())).toBe(since);
      // the window only closes on a failing endpoint, at or after since + window
      expect(failedForTheWindow(since, (since ?? 0) + 500, 500)).toBe(since !== null);
      expect(failedForTheWindow(since, (since ?? 0) + 499, 500)).toBe(false);
    },
  );
});

import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { DELIVERY_WINDOW_MS, MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_MS, nextAttemptAt } from "../../src/events/retry-schedule";

const T0 = Date.UTC(2026, 0, 1);

/** One failed attempt: how long it took, the jitter draw, and the receiver's Retry-After (if any). */
const failureArb = fc.record({
  latency: fc.integer({ min: 0, max: 10_000 }),
  jitter: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  retryAfter: fc.option(fc.integer({ min: 1, max: 200_000 }), { freq: 3 }),
});

/** Runs a delivery that fails every time; returns when each attempt started. */
function run(failures: { latency: number; jitter: number; retryAfter: number | null }[]) {
  const starts = [T0];
  const waits: { attempt: number; from: number; next: number; retryAfter: number | null; jitter: number }[] = [];
  for (let attempt = 1; ; attempt++) {
    const f = failures[(attempt - 1) % failures.length]!;
    const now = starts[attempt - 1]! + f.latency;
    const next = nextAttemptAt({ attempt, firstAt: T0, now, retryAfterSeconds: f.retryAfter, jitter: f.jitter });
    if (next === null) return { starts, waits };
    waits.push({ attempt, from: now, next, retryAfter: f.retryAfter, jitter: f.jitter });
    starts.push(next);
  }
}

describe("the delivery schedule (docs/decisions.md §6)", () => {
  test.prop([fc.array(failureArb, { minLength: 1, maxLength: 8 })])("at most eight attempts, in order, all within 24 hours of the first", (failures) => {
    const { starts } = run(failures);
    expect(starts.length).toBeLessThanOrEqual(MAX_DELIVERY_ATTEMPTS);
    for (let i = 1; i < starts.length; i++) expect(starts[i]!).toBeGreaterThanOrEqual(starts[i - 1]!);
    expect(starts[starts.length - 1]!).toBeLessThanOrEqual(T0 + DELIVERY_WINDOW_MS);
  });

  test.prop([
    fc.array(
      failureArb.map((f) => ({ ...f, retryAfter: null })),
      { minLength: 1, maxLength: 8 },
    ),
  ])("without Retry-After: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h each within ±10 %, then the eighth at 24 h", (failures) => {
    const { starts, waits } = run(failures);
    expect(starts).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    for (const w of waits.slice(0, RETRY_DELAYS_MS.length)) {
      const nominal = RETRY_DELAYS_MS[w.attempt - 1]!;
      expect(w.next - w.from).toBeGreaterThanOrEqual(Math.floor(nominal * 0.9));
      expect(w.next - w.from).toBeLessThanOrEqual(Math.ceil(nominal * 1.1));
    }
    const last = waits[waits.length - 1]!;
    expect(last.next).toBeLessThanOrEqual(T0 + DELIVERY_WINDOW_MS);
    expect(last.next).toBeGreaterThanOrEqual(T0 + DELIVERY_WINDOW_MS - (T0 + DELIVERY_WINDOW_MS - last.from) * 0.1 - 1);
  });

  test.prop([fc.array(failureArb, { minLength: 1, maxLength: 8 })])(
    "a Retry-After pushes a retry later, never past the slot after it nor the 24 hours",
    (failures) => {
      const { waits } = run(failures);
      for (const w of waits) {
        if (w.retryAfter === null) continue;
        const plain = nextAttemptAt({ attempt: w.attempt, firstAt: T0, now: w.from, retryAfterSeconds: null, jitter: w.jitter })!;
        const following = RETRY_DELAYS_MS[w.attempt];
        const cap = Math.min(T0 + DELIVERY_WINDOW_MS, w.attempt < RETRY_DELAYS_MS.length ? plain + following! : T0 + DELIVERY_WINDOW_MS);
        expect(w.next).toBeGreaterThanOrEqual(plain);
        expect(w.next).toBeLessThanOrEqual(Math.ceil(cap));
        expect(w.next).toBeGreaterThanOrEqual(Math.min(Math.ceil(cap), w.from + w.retryAfter * 1000));
      }
    },
  );

  it("stops after the eighth attempt and once the 24 hours are over", () => {
    expect(nextAttemptAt({ attempt: 8, firstAt: T0, now: T0 + 1000, retryAfterSeconds: null, jitter: 0.5 })).toBeNull();
    expect(nextAttemptAt({ attempt: 3, firstAt: T0, now: T0 + DELIVERY_WINDOW_MS, retryAfterSeconds: null, jitter: 0.5 })).toBeNull();
    expect(nextAttemptAt({ attempt: 1, firstAt: T0, now: T0 + 200, retryAfterSeconds: 30, jitter: 0.5 })).toBe(T0 + 30_200);
    expect(nextAttemptAt({ attempt: 1, firstAt: T0, now: T0 + 200, retryAfterSeconds: 3600, jitter: 0.5 })).toBe(T0 + 200 + 5_000 + 300_000);
  });
});

import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/clock";
import { BATCH_SUBMISSIONS, RateLimitService } from "../../src/engine/rate-limits";
import type { EngineDeps } from "../../src/engine/context";
import { StorageWatch } from "../../src/engine/storage-watch";
import { closeSharedStorage, storageKinds } from "../support/storage";

const { limit, windowMs } = BATCH_SUBMISSIONS;

/** One submission: `gap` ms after the one before; on a refusal, whether to wait out Retry-After and try again. */
const step = fc.record({ gap: fc.oneof(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 20_000 })), retry: fc.boolean() });

for (const kind of storageKinds()) {
  describe(`the batch rate limit on ${kind.name}`, () => {
    it("never accepts more than 20 in any 60 s, and a refused submission is accepted once its Retry-After has passed", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 70 }), fc.integer({ min: 0, max: 59_999 }), async (steps, offset) => {
          const harness = await kind.factory();
          try {
            await harness.storage.init();
            const clock = new ManualClock(Date.UTC(2026, 0, 1) + offset);
            const limits = new RateLimitService({ clock, storage: harness.storage } as unknown as EngineDeps, new StorageWatch(clock));
            const accepted: number[] = [];
            const hit = async () => {
              const result = await limits.hit("key-hash", BATCH_SUBMISSIONS);
              if (result.isOk()) accepted.push(clock.now());
              return result;
            };
            for (const { gap, retry } of steps) {
              clock.advance(gap);
              const result = await hit();
              if (result.isOk() || !retry) continue;
              expect(result.error.code).toBe("rate_limited");
              const seconds = result.error.retryAfter!;
              expect(seconds).toBeGreaterThan(0);
              expect(seconds).toBeLessThanOrEqual(windowMs / 1000);
              // a second before Retry-After the window is still full (a refusal records nothing)
              if (seconds > 1) {
                clock.advance((seconds - 1) * 1000);
                expect((await hit()).isErr()).toBe(true);
                clock.advance(1000);
              } else clock.advance(seconds * 1000);
              expect((await hit()).isOk()).toBe(true);
            }
            // no rolling window holds more than the limit: the one ending at each accepted submission
            for (const at of accepted) {
              expect(accepted.filter((t) => t > at - windowMs && t <= at).length).toBeLessThanOrEqual(limit);
            }
          } finally {
            await harness.close();
          }
        }),
        { numRuns: kind.name === "memory" ? 200 : 10 },
      );
    }, 120_000);
  });
}

afterAll(closeSharedStorage);

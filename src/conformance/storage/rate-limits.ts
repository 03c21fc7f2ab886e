import { describe, expect, it } from "vitest";
import { type SuiteContext, T0 } from "./fixtures";

export function rateLimitSuite(s: SuiteContext): void {
  describe("rate limits", () => {
    const take = (key: string, now: number, limit = 3) => s.storage.transaction((tx) => tx.rateLimits.take(key, now, 60_000, limit));

    it("holds a sliding window per key: refused ones take no slot, and a slot frees as the oldest hit leaves", async () => {
      expect(await take("k1", T0)).toEqual({ accepted: true });
      expect(await take("k1", T0)).toEqual({ accepted: true });
      expect(await take("k1", T0 + 30_000)).toEqual({ accepted: true });
      expect(await take("k2", T0 + 30_000)).toEqual({ accepted: true });
      // the window (T0 + 59_999 - 60_000, T0 + 59_999] still holds all three of k1
      expect(await take("k1", T0 + 59_999)).toEqual({ accepted: false, retryAt: T0 + 60_000 });
      // at T0 + 60_000 both hits at T0 have left: two slots
      expect(await take("k1", T0 + 60_000)).toEqual({ accepted: true });
      expect(await take("k1", T0 + 60_001)).toEqual({ accepted: true });
      expect(await take("k1", T0 + 60_002)).toEqual({ accepted: false, retryAt: T0 + 90_000 });
    });

    it("prunes hits recorded before a moment", async () => {
      await take("p1", T0);
      await take("p1", T0);
      await take("p1", T0 + 1_000);
      await take("p2", T0 + 2_000);
      expect(await s.storage.transaction((tx) => tx.rateLimits.pruneBefore(T0 + 1_000, 100))).toBe(1);
      // only the hit at T0 + 1_000 is left: a limit of 2 has a slot
      expect(await take("p1", T0 + 1_500, 2)).toEqual({ accepted: true });
      expect(await take("p1", T0 + 1_600, 2)).toEqual({ accepted: false, retryAt: T0 + 61_000 });
    });

    it("with concurrentTransactions: never lets two takes of one key have the last slot", async (ctx) => {
      if (!s.storage.capabilities.concurrentTransactions) {
        ctx.skip("the adapter runs transactions one at a time (capabilities.concurrentTransactions is false)");
      }
      const results = await Promise.all(Array.from({ length: 8 }, () => take("race", T0 + 5, 3)));
      expect(results.filter((r) => r.accepted)).toHaveLength(3);
    });
  });
}

import { describe, expect, it } from "vitest";
import { type SuiteContext, T0 } from "./fixtures";

export function rateLimitSuite(s: SuiteContext): void {
  describe("rate limits", () => {
    it("counts hits per key and window, and prunes old windows", async () => {
      const hit = (key: string, window: number) => s.storage.transaction((tx) => tx.rateLimits.hit(key, window));
      expect(await hit("k1", T0)).toBe(1);
      expect(await hit("k1", T0)).toBe(2);
      expect(await hit("k2", T0)).toBe(1);
      expect(await hit("k1", T0 + 60_000)).toBe(1);
      expect(await s.storage.transaction((tx) => tx.rateLimits.pruneBefore(T0 + 60_000, 100))).toBe(2);
      expect(await hit("k1", T0)).toBe(1);
    });
  });
}

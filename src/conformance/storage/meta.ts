import { describe, expect, it } from "vitest";
import type { SuiteContext } from "./fixtures";

export function metaSuite(s: SuiteContext): void {
  describe("meta", () => {
    it("keeps the first value of setIfAbsent and overwrites with set", async () => {
      expect(await s.storage.transaction((tx) => tx.meta.get("k"))).toBeNull();
      expect(await s.storage.transaction((tx) => tx.meta.setIfAbsent("k", "one"))).toBe("one");
      expect(await s.storage.transaction((tx) => tx.meta.setIfAbsent("k", "two"))).toBe("one");
      await s.storage.transaction((tx) => tx.meta.set("k", "three"));
      expect(await s.storage.transaction((tx) => tx.meta.get("k"))).toBe("three");
    });

    it("raises a number only upwards, atomically", async () => {
      expect(await s.storage.transaction((tx) => tx.meta.raise("n", 5))).toBe(5);
      expect(await s.storage.transaction((tx) => tx.meta.raise("n", 3))).toBe(5);
      await Promise.all([7, 9, 8, 6].map((v) => s.storage.transaction((tx) => tx.meta.raise("n", v))));
      expect(await s.storage.transaction((tx) => tx.meta.get("n"))).toBe("9");
    });
  });
}

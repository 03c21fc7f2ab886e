import { describe, expect, it } from "vitest";
import type { IdempotencyRecord } from "../../ports/storage";
import { type SuiteContext, T0 } from "./fixtures";

export function idempotencySuite(s: SuiteContext): void {
  describe("idempotency keys", () => {
    it("claims once, then returns the existing row; puts, deletes and prunes", async () => {
      const rec: IdempotencyRecord = {
        accountId: "acct_a",
        key: "k-1",
        fingerprint: "f1",
        lockedAt: T0,
        response: null,
        created: T0,
        expiresAt: T0 + 1000,
      };
      expect(await s.storage.transaction((tx) => tx.idempotency.claim(rec))).toEqual({ inserted: true });
      expect(await s.storage.transaction((tx) => tx.idempotency.claim({ ...rec, fingerprint: "f2" }))).toEqual({
        inserted: false,
        existing: rec,
      });
      const done = { ...rec, lockedAt: null, response: { status: 200, body: { id: "x", n: [1, 2] } } };
      await s.storage.transaction((tx) => tx.idempotency.put(done));
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([done]);
      expect(await s.storage.transaction((tx) => tx.idempotency.claim({ ...rec, accountId: "acct_b" }))).toEqual({
        inserted: true,
      });
      await s.storage.transaction((tx) => tx.idempotency.delete("acct_b", "k-1"));
      expect(await s.inspect.idempotencyKeys("acct_b")).toEqual([]);
      expect(await s.storage.transaction((tx) => tx.idempotency.pruneExpired(T0 + 999, 10))).toBe(0);
      expect(await s.storage.transaction((tx) => tx.idempotency.pruneExpired(T0 + 1000, 10))).toBe(1);
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([]);
    });
  });
}

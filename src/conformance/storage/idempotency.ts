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

    it("replaces a row in one statement only while it stands as expected", async () => {
      const held: IdempotencyRecord = { accountId: "acct_a", key: "k-2", fingerprint: "f1", lockedAt: T0, response: null, created: T0, expiresAt: T0 + 1000 };
      const saved = { ...held, lockedAt: null, response: { status: 201, body: { id: "po_1", legs: [{ status: "pending" }] } } };
      const newer = { ...saved, response: { status: 201, body: { id: "po_1", legs: [{ status: "broadcast" }] } } };
      expect(await s.storage.transaction((tx) => tx.idempotency.replaceIf(saved, { lockedAt: T0, responded: false }))).toBe(false); // no row
      await s.storage.transaction((tx) => tx.idempotency.claim(held));
      // another request's lock, a different body, or a response saved already: nothing changes
      expect(await s.storage.transaction((tx) => tx.idempotency.replaceIf(saved, { lockedAt: T0 + 1, responded: false }))).toBe(false);
      expect(await s.storage.transaction((tx) => tx.idempotency.replaceIf({ ...saved, fingerprint: "f2" }, { lockedAt: T0, responded: false }))).toBe(false);
      expect(await s.storage.transaction((tx) => tx.idempotency.replaceIf(saved, { lockedAt: T0, responded: true }))).toBe(false);
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([held]);
      expect(await s.storage.transaction((tx) => tx.idempotency.replaceIf(saved, { lockedAt: T0, responded: false }))).toBe(true);
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([saved]);
      expect(await s.storage.transaction((tx) => tx.idempotency.replaceIf(newer, { lockedAt: T0, responded: false }))).toBe(false);
      expect(await s.storage.transaction((tx) => tx.idempotency.replaceIf(newer, { lockedAt: null, responded: true }))).toBe(true);
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([newer]);
    });
  });
}

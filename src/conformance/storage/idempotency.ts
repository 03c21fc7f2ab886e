import { describe, expect, it } from "vitest";
import { IdempotencyKeyLostError, type IdempotencyRecord } from "../../ports/storage/idempotency";
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
        owner: null,
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

    it("replaces a row at commit only while it stands as expected; a required replacement that misses rolls back", async () => {
      const held: IdempotencyRecord = {
        accountId: "acct_a",
        key: "k-2",
        fingerprint: "f1",
        lockedAt: T0,
        response: null,
        created: T0,
        expiresAt: T0 + 1000,
        owner: null,
      };
      const saved = { ...held, lockedAt: null, response: { status: 201, body: { id: "po_1", legs: [{ status: "pending" }] } } };
      const newer = { ...saved, response: { status: 201, body: { id: "po_1", legs: [{ status: "broadcast" }] } } };
      let writes = 0;
      const replace = (record: IdempotencyRecord, expected: { lockedAt: number | null; responded: boolean }, required: boolean) =>
        s.storage.transaction(async (tx) => {
          await tx.meta.set(`beside-${++writes}`, "x"); // a write of the same transaction
          await tx.idempotency.replaceAtCommit(record, expected, { required });
        });
      const lost = async (record: IdempotencyRecord, expected: { lockedAt: number | null; responded: boolean }) => {
        await expect(replace(record, expected, true)).rejects.toBeInstanceOf(IdempotencyKeyLostError);
        expect(await s.storage.transaction((tx) => tx.meta.get(`beside-${writes}`))).toBeNull(); // rolled back with it
      };
      await lost(saved, { lockedAt: T0, responded: false }); // no row
      await replace(saved, { lockedAt: T0, responded: false }, false); // not required: nothing happens
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([]);
      await s.storage.transaction((tx) => tx.idempotency.claim(held));
      // another request's lock, a different body, or a response saved already: nothing changes
      await lost(saved, { lockedAt: T0 + 1, responded: false });
      await lost({ ...saved, fingerprint: "f2" }, { lockedAt: T0, responded: false });
      await lost(saved, { lockedAt: T0, responded: true });
      await replace(saved, { lockedAt: T0, responded: true }, false);
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([held]);
      await replace(saved, { lockedAt: T0, responded: false }, true);
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([saved]);
      await lost(newer, { lockedAt: T0, responded: false });
      // the replacement is in place before the transaction's next statement
      const seen = await s.storage.transaction(async (tx) => {
        await tx.idempotency.replaceAtCommit(newer, { lockedAt: null, responded: true }, { required: true });
        return tx.idempotency.claim(held);
      });
      expect(seen).toEqual({ inserted: false, existing: newer });
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([newer]);
    });
  });
}

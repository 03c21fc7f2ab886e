import { describe, expect, it } from "vitest";
import { type SuiteContext, T0, event } from "./fixtures";

export function eventSuite(s: SuiteContext): void {
  describe("events", () => {
    it("stores, gets, lists by type and prunes by age", async () => {
      const e1 = event("acct_a", "evt_01aaaaaaaaaaaaaaaaaaaaaaa1", T0);
      const e2 = { ...event("acct_a", "evt_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 10), type: "payout.created" };
      const e3 = event("acct_b", "evt_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 20);
      await s.storage.transaction((tx) => tx.events.insert([e1, e2, e3]));
      expect(await s.storage.transaction((tx) => tx.events.get("acct_a", e2.id))).toEqual(e2);
      expect(await s.storage.transaction((tx) => tx.events.get("acct_b", e2.id))).toBeNull();
      const many = await s.storage.transaction((tx) => tx.events.getMany("acct_a", [e2.id, e3.id, "evt_missing", e1.id]));
      expect(many.sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([e1, e2]); // e3 is another account's
      expect(await s.storage.transaction((tx) => tx.events.getMany("acct_a", []))).toEqual([]);
      const all = await s.storage.transaction((tx) => tx.events.list({ accountId: "acct_a", limit: 10 }));
      expect(all.map((e) => e.id)).toEqual([e2.id, e1.id]);
      const typed = await s.storage.transaction((tx) => tx.events.list({ accountId: "acct_a", status: "payout.created", limit: 10 }));
      expect(typed.map((e) => e.id)).toEqual([e2.id]);
      expect(await s.storage.transaction((tx) => tx.events.pruneBefore(T0 + 15, 100))).toBe(2);
      expect((await s.inspect.events("acct_a")).length).toBe(0);
      expect(await s.inspect.events("acct_b")).toEqual([e3]);
    });
  });
}

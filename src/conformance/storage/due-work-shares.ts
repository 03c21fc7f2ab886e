import { describe, expect, it } from "vitest";
import type { DueWorkRecord } from "../../ports/storage";
import { type SuiteContext, T0, work } from "./fixtures";

/** An item of `account` (null: the engine's own) in `group`, due at `runAt`. */
function item(n: number, account: string | null, runAt: number, group: string | null = null): DueWorkRecord {
  return { ...work(`job_01shares${String(n).padStart(18, "0")}`, runAt), accountId: account, livemode: account === null ? null : false, group };
}

/** Claims with `accountRoom` (a lane's fair shares, `ClaimRequest.accountRoom`). */
export function dueWorkSharesSuite(s: SuiteContext): void {
  describe("due work: shares of a claim among accounts", () => {
    it("takes at most each account's room, oldest first, and looks past a backlog of one account for the others", async () => {
      const backlog = Array.from({ length: 40 }, (_, i) => item(i, "acct_a", T0 + i, `we_a${i % 2}`));
      const others = [
        item(100, null, T0 + 50),
        item(101, "acct_b", T0 + 60, "we_b"),
        item(102, "acct_c", T0 + 70, "we_c"),
        item(103, "acct_c", T0 + 71, "we_c"),
      ];
      await s.storage.transaction((tx) => tx.work.enqueue([...backlog, ...others]));
      const claim = (owner: string, limit: number, room: Record<string, number>, extra: { groupLimit?: number } = {}) =>
        s.storage.claimDueWork({ now: T0 + 100, limit, leaseMs: 1000, owner, accountRoom: { room, others: 1 }, ...extra });
      // acct_a may take 2, others 1 each: the 2 oldest of acct_a, the engine's item (no account: not
      // limited), acct_b's, and acct_c's oldest, though 40 items of acct_a are older than all of them
      const first = await claim("w1", 8, { acct_a: 2 }, { groupLimit: 16 });
      expect(first.map((w) => w.id)).toEqual([backlog[0]!.id, backlog[1]!.id, others[0]!.id, others[1]!.id, others[2]!.id]);
      // a short claim took everything the shares allow: acct_a and acct_c out of room, acct_b has nothing left
      expect(await claim("w2", 8, { acct_a: 0, acct_c: 0 }, { groupLimit: 16 })).toEqual([]);
      // without a group limit too; room left for acct_a only: its next oldest
      const second = await claim("w2", 8, { acct_a: 3, acct_c: 0 });
      expect(second.map((w) => w.id)).toEqual([backlog[2]!.id, backlog[3]!.id, backlog[4]!.id]);
      // a full claim: the limit first, in due order
      const third = await claim("w3", 2, { acct_a: 10 });
      expect(third.map((w) => w.id)).toEqual([backlog[5]!.id, backlog[6]!.id]);
      expect(third.every((w) => w.leaseOwner === "w3" && w.attempts === 1)).toBe(true);
    });

    it("applies the group limit and the shares together", async () => {
      // acct_a: 6 items on we_a (group limit 2) and 6 on we_a2; acct_b: 2 items on we_b
      const items = [
        ...Array.from({ length: 6 }, (_, i) => item(i, "acct_a", T0 + i, "we_a")),
        ...Array.from({ length: 6 }, (_, i) => item(10 + i, "acct_a", T0 + 10 + i, "we_a2")),
        item(20, "acct_b", T0 + 20, "we_b"),
        item(21, "acct_b", T0 + 21, "we_b"),
      ];
      await s.storage.transaction((tx) => tx.work.enqueue(items));
      const claimed = await s.storage.claimDueWork({
        now: T0 + 100,
        limit: 10,
        leaseMs: 1000,
        owner: "w1",
        groupLimit: 2,
        accountRoom: { room: {}, others: 3 },
      });
      // acct_a: we_a's 2 oldest (its limit), then we_a2's oldest (acct_a's third); acct_b: both
      expect(claimed.map((w) => w.id)).toEqual([items[0]!.id, items[1]!.id, items[6]!.id, items[12]!.id, items[13]!.id]);
    });

    it("claims no item of the groups held back, grouped claims or not", async () => {
      const items = [item(0, "acct_a", T0, "we_paused"), item(1, "acct_a", T0 + 1, "we_ok"), item(2, null, T0 + 2), item(3, "acct_b", T0 + 3, "we_paused")];
      await s.storage.transaction((tx) => tx.work.enqueue(items));
      const plain = await s.storage.claimDueWork({ now: T0 + 100, limit: 10, leaseMs: 1000, owner: "w1", exceptGroups: ["we_paused"] });
      expect(plain.map((w) => w.id)).toEqual([items[1]!.id, items[2]!.id]);
      expect(await s.storage.claimDueWork({ now: T0 + 100, limit: 10, leaseMs: 1000, owner: "w2", exceptGroups: ["we_paused"], groupLimit: 4 })).toEqual([]);
      const after = await s.storage.claimDueWork({ now: T0 + 100, limit: 10, leaseMs: 1000, owner: "w3", groupLimit: 4 });
      expect(after.map((w) => w.id)).toEqual([items[0]!.id, items[3]!.id]);
    });
  });
}

import { describe, expect, it } from "vitest";
import { type SuiteContext, T0, work } from "./fixtures";

/**
 * Due work is keyed by account (docs/scaling.md): a dedupe key is unique within its account, the
 * engine's own work (no account) counting as one account, and that work reads back without one.
 */
export function dueWorkAccountSuite(s: SuiteContext): void {
  describe("due work by account", () => {
    it("keeps a dedupe key once per account, the engine's own work being one account", async () => {
      const engine = (id: string, dedupeKey: string | null) => ({ ...work(id, T0, dedupeKey), accountId: null, livemode: null });
      await s.storage.transaction((tx) =>
        tx.work.enqueue([
          work("job_01aaaaaaaaaaaaaaaaaaaaaac1", T0, "k"),
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaac2", T0, "k"), accountId: "acct_b" },
          engine("job_01aaaaaaaaaaaaaaaaaaaaaac3", "k"),
        ]),
      );
      await s.storage.transaction((tx) =>
        tx.work.enqueue([
          work("job_01aaaaaaaaaaaaaaaaaaaaaac4", T0, "k"),
          { ...work("job_01aaaaaaaaaaaaaaaaaaaaaac5", T0, "k"), accountId: "acct_b" },
          engine("job_01aaaaaaaaaaaaaaaaaaaaaac6", "k"),
          engine("job_01aaaaaaaaaaaaaaaaaaaaaac7", "other"),
        ]),
      );
      const stored = await s.inspect.work();
      expect(stored.map((w) => [w.id, w.accountId]).sort()).toEqual([
        ["job_01aaaaaaaaaaaaaaaaaaaaaac1", "acct_a"],
        ["job_01aaaaaaaaaaaaaaaaaaaaaac2", "acct_b"],
        ["job_01aaaaaaaaaaaaaaaaaaaaaac3", null],
        ["job_01aaaaaaaaaaaaaaaaaaaaaac7", null],
      ]);
      const own = await s.storage.transaction((tx) => tx.work.get("job_01aaaaaaaaaaaaaaaaaaaaaac3"));
      expect(own).toMatchObject({ accountId: null, livemode: null, dedupeKey: "k" });
      const claimed = await s.storage.claimDueWork({ now: T0, limit: 10, leaseMs: 1000, owner: "w1" });
      expect(claimed.filter((w) => w.accountId === null).map((w) => w.id)).toEqual(["job_01aaaaaaaaaaaaaaaaaaaaaac3", "job_01aaaaaaaaaaaaaaaaaaaaaac7"]);
      // done, the engine's key is free again; the accounts' keys still stand
      expect(await s.storage.transaction((tx) => tx.work.completeMany(["job_01aaaaaaaaaaaaaaaaaaaaaac3"], "w1"))).toEqual(["job_01aaaaaaaaaaaaaaaaaaaaaac3"]);
      await s.storage.transaction((tx) => tx.work.enqueue([engine("job_01aaaaaaaaaaaaaaaaaaaaaac8", "k"), work("job_01aaaaaaaaaaaaaaaaaaaaaac9", T0, "k")]));
      expect((await s.inspect.work()).map((w) => w.id).sort()).toEqual([
        "job_01aaaaaaaaaaaaaaaaaaaaaac1",
        "job_01aaaaaaaaaaaaaaaaaaaaaac2",
        "job_01aaaaaaaaaaaaaaaaaaaaaac7",
        "job_01aaaaaaaaaaaaaaaaaaaaaac8",
      ]);
    });
  });
}

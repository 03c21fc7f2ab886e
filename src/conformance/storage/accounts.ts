import { describe, expect, it } from "vitest";
import { type SuiteContext, T0, account } from "./fixtures";

export function accountSuite(s: SuiteContext): void {
  describe("accounts and API keys", () => {
    it("stores accounts and finds keys by hash only", async () => {
      await s.storage.transaction(async (tx) => {
        await tx.accounts.insertAccount(account("acct_a"));
        await tx.accounts.updateAccountSettings("acct_a", { policy: { max: "10" } });
      });
      const key = { hash: "ab".repeat(32), accountId: "acct_a", livemode: false, scopes: ["payouts:write"], redacted: "sk_test_…abcd", created: T0 };
      expect(await s.storage.transaction((tx) => tx.accounts.insertApiKey(key))).toBe(true);
      expect(await s.storage.transaction((tx) => tx.accounts.insertApiKey({ ...key, accountId: "acct_a" }))).toBe(false);
      expect(await s.storage.transaction((tx) => tx.accounts.findApiKey(key.hash))).toEqual(key);
      expect(await s.storage.transaction((tx) => tx.accounts.findApiKey("cd".repeat(32)))).toBeNull();
      expect(await s.storage.transaction((tx) => tx.accounts.getAccount("acct_a"))).toEqual({
        ...account("acct_a"),
        settings: { policy: { max: "10" } },
      });
    });
  });
}

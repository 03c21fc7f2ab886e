import { describe, expect, it } from "vitest";
import type { ApiKeyRecord } from "../../ports/storage";
import { type SuiteContext, T0, account, resource } from "./fixtures";

export function accountSuite(s: SuiteContext): void {
  describe("accounts and API keys", () => {
    const apiKey = (n: number, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
      hash: n.toString(16).padStart(2, "0").repeat(32),
      accountId: "acct_a",
      id: `key_${n}`,
      name: null,
      livemode: false,
      scopes: [],
      redacted: `sk_test_…${n}`.padEnd(13, "0"),
      created: T0 + n,
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
      ...extra,
    });

    it("stores accounts and finds keys by hash only", async () => {
      await s.storage.transaction(async (tx) => {
        await tx.accounts.insertAccount(account("acct_a"));
        await tx.accounts.updateAccountSettings("acct_a", { policy: { max: "10" } });
      });
      const key = apiKey(171, { scopes: ["payouts:write"], name: "ci" });
      expect(await s.storage.transaction((tx) => tx.accounts.insertApiKey(key))).toBe(true);
      expect(await s.storage.transaction((tx) => tx.accounts.insertApiKey({ ...key, id: "key_other" }))).toBe(false);
      expect(await s.storage.transaction((tx) => tx.accounts.findApiKey(key.hash))).toEqual(key);
      expect(await s.storage.transaction((tx) => tx.accounts.findApiKey("cd".repeat(32)))).toBeNull();
      expect(await s.storage.transaction((tx) => tx.accounts.getAccount("acct_a"))).toEqual({
        ...account("acct_a"),
        settings: { policy: { max: "10" } },
      });
    });

    it("reads an account with one of its resources, never another account's", async () => {
      const mine = resource("acct_a", "rcp_01aaaaaaaaaaaaaaaaaaaaaaaa", T0);
      const theirs = resource("acct_b", "rcp_01bbbbbbbbbbbbbbbbbbbbbbbb", T0 + 1);
      await s.storage.transaction(async (tx) => {
        await tx.accounts.insertAccount(account("acct_a"));
        await tx.accounts.insertAccount(account("acct_b"));
        await tx.accounts.updateAccountSettings("acct_a", { policy: { max: "10" } });
        await tx.resources.insert([mine, theirs]);
      });
      const read = (accountId: string, id: string) => s.storage.transaction((tx) => tx.accounts.getAccountWith(accountId, id));
      const a = { ...account("acct_a"), settings: { policy: { max: "10" } } };
      expect(await read("acct_a", mine.id)).toEqual({ account: a, resource: await s.storage.transaction((tx) => tx.resources.get("acct_a", mine.id)) });
      expect(await read("acct_a", theirs.id)).toEqual({ account: a, resource: null });
      expect(await read("acct_b", theirs.id)).toEqual({
        account: account("acct_b"),
        resource: await s.storage.transaction((tx) => tx.resources.get("acct_b", theirs.id)),
      });
      expect(await read("acct_c", theirs.id)).toEqual({ account: null, resource: null });
    });

    it("gets, pages and changes an account's keys by id, never another account's", async () => {
      await s.storage.transaction(async (tx) => {
        await tx.accounts.insertAccount(account("acct_a"));
        await tx.accounts.insertAccount(account("acct_b"));
        for (const n of [1, 2, 3]) await tx.accounts.insertApiKey(apiKey(n));
        await tx.accounts.insertApiKey(apiKey(4, { accountId: "acct_b" }));
      });
      const run = s.storage.transaction.bind(s.storage);
      expect(await run((tx) => tx.accounts.getApiKey("acct_a", "key_2", { lock: true }))).toEqual(apiKey(2));
      expect(await run((tx) => tx.accounts.getApiKey("acct_a", "key_4"))).toBeNull();
      const first = await run((tx) => tx.accounts.listApiKeys({ accountId: "acct_a", limit: 2 }));
      expect(first.map((k) => k.id)).toEqual(["key_3", "key_2"]);
      const rest = await run((tx) => tx.accounts.listApiKeys({ accountId: "acct_a", limit: 2, after: { created: first[1]!.created, id: first[1]!.id } }));
      expect(rest.map((k) => k.id)).toEqual(["key_1"]);
      expect(await run((tx) => tx.accounts.updateApiKey("acct_a", "key_2", { expiresAt: T0 + 60_000 }))).toBe(true);
      expect(await run((tx) => tx.accounts.updateApiKey("acct_a", "key_2", { revokedAt: T0 + 5 }))).toBe(true);
      expect(await run((tx) => tx.accounts.updateApiKey("acct_a", "key_4", { revokedAt: T0 }))).toBe(false);
      expect(await run((tx) => tx.accounts.updateApiKey("acct_a", "key_2", { lastUsedAt: T0 + 7 }))).toBe(true);
      expect(await run((tx) => tx.accounts.findApiKey(apiKey(2).hash))).toEqual({
        ...apiKey(2),
        expiresAt: T0 + 60_000,
        revokedAt: T0 + 5,
        lastUsedAt: T0 + 7,
      });
      expect(await run((tx) => tx.accounts.findApiKey(apiKey(4).hash))).toEqual(apiKey(4, { accountId: "acct_b" }));
      await run(async (tx) => {
        await tx.accounts.updateApiKey("acct_a", "key_1", { revokedAt: T0 });
        throw new Error("rolled back");
      }).catch(() => undefined);
      expect((await run((tx) => tx.accounts.getApiKey("acct_a", "key_1")))?.revokedAt).toBeNull();
    });
  });
}

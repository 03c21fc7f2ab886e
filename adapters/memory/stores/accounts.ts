import type { AccountStore } from "../../../src/ports/public";
import { frozen, k2, keysetPage, type MemoryTx } from "../memory-tables";

export function accountStore(m: MemoryTx): AccountStore {
  const { t } = m;
  return {
    async insertAccount(account) {
      if (t.accounts.has(account.id)) throw new Error(`duplicate account ${account.id}`);
      m.put(t.accounts, account.id, frozen(account));
    },
    async getAccount(id) {
      return t.accounts.get(id) ?? null;
    },
    async getAccountWith(accountId, resourceId) {
      return { account: t.accounts.get(accountId) ?? null, resource: t.resources.get(k2(accountId, resourceId)) ?? null };
    },
    async updateAccountSettings(id, settings) {
      const account = t.accounts.get(id);
      if (!account) throw new Error(`no account ${id}`);
      m.put(t.accounts, id, frozen({ ...account, settings }));
    },
    async insertApiKey(key) {
      if (t.apiKeys.has(key.hash)) return false;
      for (const k of t.apiKeys.values()) if (k.accountId === key.accountId && k.id === key.id) throw new Error(`duplicate API key id ${key.id}`);
      m.put(t.apiKeys, key.hash, frozen(key));
      return true;
    },
    async findApiKey(hash) {
      return t.apiKeys.get(hash) ?? null;
    },
    async getApiKey(accountId, id) {
      for (const key of t.apiKeys.values()) if (key.accountId === accountId && key.id === id) return key;
      return null;
    },
    async listApiKeys(query) {
      return keysetPage(
        [...t.apiKeys.values()],
        { accountId: query.accountId, limit: query.limit, ...(query.after ? { after: query.after } : {}) },
        () => null,
        () => null,
      );
    },
    async updateApiKey(accountId, id, change) {
      const key = await this.getApiKey(accountId, id);
      if (!key) return false;
      m.put(t.apiKeys, key.hash, frozen({ ...key, ...change }));
      return true;
    },
  };
}

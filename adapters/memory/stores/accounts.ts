import type { AccountStore } from "../../../src/ports/storage";
import { frozen, type MemoryTx } from "../memory-tables";

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
    async updateAccountSettings(id, settings) {
      const account = t.accounts.get(id);
      if (!account) throw new Error(`no account ${id}`);
      m.put(t.accounts, id, frozen({ ...account, settings }));
    },
    async insertApiKey(key) {
      if (t.apiKeys.has(key.hash)) return false;
      m.put(t.apiKeys, key.hash, frozen(key));
      return true;
    },
    async findApiKey(hash) {
      return t.apiKeys.get(hash) ?? null;
    },
  };
}

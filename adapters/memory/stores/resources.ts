import { StaleResourceError, type ResourceRecord, type ResourceStore } from "../../../src/ports/public";
import { frozen, k2, keysetPage, type MemoryTx } from "../memory-tables";

export function resourceStore(m: MemoryTx): ResourceStore {
  const { t } = m;
  const update = (record: ResourceRecord): boolean => {
    const k = k2(record.accountId, record.id);
    const current = t.resources.get(k);
    if (!current || current.version !== record.version - 1) return false;
    m.put(t.resources, k, frozen(record));
    return true;
  };
  return {
    async insert(records) {
      for (const r of records) {
        if (t.resources.has(k2(r.accountId, r.id))) throw new Error(`duplicate resource ${r.id}`);
      }
      for (const r of records) m.put(t.resources, k2(r.accountId, r.id), frozen(r));
    },
    async get(accountId, id) {
      return t.resources.get(k2(accountId, id)) ?? null;
    },
    async getMany(accountId, ids) {
      // one transaction at a time holds the tables: a lock is implied
      return ids.map((id) => t.resources.get(k2(accountId, id))).filter((r): r is ResourceRecord => !!r);
    },
    async delete(accountId, id) {
      const k = k2(accountId, id);
      if (!t.resources.has(k)) return false;
      m.remove(t.resources, k);
      return true;
    },
    async update(record) {
      return update(record);
    },
    async updateMany(records) {
      for (const record of records) {
        if (!update(record)) throw new StaleResourceError(record.accountId, [record.id]);
      }
    },
    async list(query) {
      const rows = [...t.resources.values()].filter((r) => r.kind === query.kind);
      return keysetPage(
        rows,
        query,
        (r) => r.status,
        (r) => r.reference,
        (r) => (r.data as { metadata?: unknown } | null)?.metadata,
      );
    },
  };
}

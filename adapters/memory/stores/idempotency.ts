import { IdempotencyKeyLostError, type IdempotencyStore } from "../../../src/ports/public";
import { frozen, k2, pruneMap, type MemoryTx } from "../memory-tables";

export function idempotencyStore(m: MemoryTx): IdempotencyStore {
  const { t } = m;
  return {
    async claim(record) {
      const k = k2(record.accountId, record.key);
      const existing = t.idempotency.get(k);
      if (existing) return { inserted: false, existing };
      m.put(t.idempotency, k, frozen({ ...record, owner: record.owner ?? null }));
      return { inserted: true };
    },
    async put(record) {
      m.put(t.idempotency, k2(record.accountId, record.key), frozen({ ...record, owner: record.owner ?? null }));
    },
    // transactions run one at a time: the row stands now as it will at commit
    async replaceAtCommit(record, expected, options) {
      const k = k2(record.accountId, record.key);
      const existing = t.idempotency.get(k);
      const matches =
        existing !== undefined &&
        existing.fingerprint === record.fingerprint &&
        existing.created === record.created &&
        existing.lockedAt === expected.lockedAt &&
        (existing.response !== null) === expected.responded;
      if (matches) m.put(t.idempotency, k, frozen({ ...record, owner: record.owner ?? null }));
      else if (options.required) throw new IdempotencyKeyLostError(record.accountId, record.key);
    },
    async delete(accountId, key) {
      m.remove(t.idempotency, k2(accountId, key));
    },
    pruneExpired: async (now, limit) => pruneMap(m, t.idempotency, (r) => r.expiresAt <= now, limit),
  };
}

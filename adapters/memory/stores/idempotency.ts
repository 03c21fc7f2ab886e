import type { IdempotencyStore } from "../../../src/ports/storage";
import { frozen, k2, pruneMap, type MemoryTx } from "../memory-tables";

export function idempotencyStore(m: MemoryTx): IdempotencyStore {
  const { t } = m;
  return {
    async claim(record) {
      const k = k2(record.accountId, record.key);
      const existing = t.idempotency.get(k);
      if (existing) return { inserted: false, existing };
      m.put(t.idempotency, k, frozen(record));
      return { inserted: true };
    },
    async put(record) {
      m.put(t.idempotency, k2(record.accountId, record.key), frozen(record));
    },
    async replaceIf(record, expected) {
      const k = k2(record.accountId, record.key);
      const existing = t.idempotency.get(k);
      const matches =
        existing !== undefined &&
        existing.fingerprint === record.fingerprint &&
        existing.created === record.created &&
        existing.lockedAt === expected.lockedAt &&
        (existing.response !== null) === expected.responded;
      if (matches) m.put(t.idempotency, k, frozen(record));
      return matches;
    },
    async delete(accountId, key) {
      m.remove(t.idempotency, k2(accountId, key));
    },
    pruneExpired: async (now, limit) => pruneMap(m, t.idempotency, (r) => r.expiresAt <= now, limit),
  };
}

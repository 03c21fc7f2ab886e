import type { RateLimitStore } from "../../../src/ports/public";
import { frozen, k2, pruneMap, type MemoryTx } from "../memory-tables";

export function rateLimitStore(m: MemoryTx): RateLimitStore {
  const { t } = m;
  return {
    async hit(key, windowStart) {
      const k = k2(key, String(windowStart));
      const row = t.rateLimits.get(k) ?? { key, windowStart, count: 0 };
      m.put(t.rateLimits, k, frozen({ ...row, count: row.count + 1 }));
      return row.count + 1;
    },
    pruneBefore: async (before, limit) => pruneMap(m, t.rateLimits, (r) => r.windowStart < before, limit),
  };
}

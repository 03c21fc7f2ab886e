import { type RateLimitStore, slidingWindowTake } from "../../../src/ports/public";
import { frozen, k2, pruneMap, type MemoryTx } from "../memory-tables";

export function rateLimitStore(m: MemoryTx): RateLimitStore {
  const { t } = m;
  return {
    async take(key, now, windowMs, limit) {
      const hits = [...t.rateLimits.values()].filter((r) => r.key === key && r.at > now - windowMs);
      const taken = slidingWindowTake(hits, now, windowMs, limit);
      if (taken.accepted) {
        const k = k2(key, String(now));
        const row = t.rateLimits.get(k) ?? { key, at: now, count: 0 };
        m.put(t.rateLimits, k, frozen({ ...row, count: row.count + 1 }));
      }
      return taken;
    },
    pruneBefore: async (before, limit) => pruneMap(m, t.rateLimits, (r) => r.at < before, limit),
  };
}

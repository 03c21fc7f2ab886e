import type { MetaStore } from "../../../src/ports/public";
import type { MemoryTx } from "../memory-tables";

export function metaStore(m: MemoryTx): MetaStore {
  const { t } = m;
  return {
    async get(key) {
      return t.meta.get(key) ?? null;
    },
    async setIfAbsent(key, value) {
      const existing = t.meta.get(key);
      if (existing !== undefined) return existing;
      m.put(t.meta, key, value);
      return value;
    },
    async set(key, value) {
      m.put(t.meta, key, value);
    },
    async raise(key, value) {
      const stored = t.meta.get(key);
      const next = stored === undefined ? value : Math.max(Number(stored), value);
      m.put(t.meta, key, String(next));
      return next;
    },
  };
}

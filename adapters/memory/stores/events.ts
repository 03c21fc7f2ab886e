import type { EventRecord, EventStore } from "../../../src/ports/public";
import { frozen, k2, keysetPage, pruneMap, type MemoryTx } from "../memory-tables";

export function eventStore(m: MemoryTx): EventStore {
  const { t } = m;
  return {
    async insert(events) {
      for (const e of events) m.put(t.events, k2(e.accountId, e.id), frozen(e));
    },
    async get(accountId, id) {
      return t.events.get(k2(accountId, id)) ?? null;
    },
    async getMany(accountId, ids) {
      return ids.map((id) => t.events.get(k2(accountId, id))).filter((e): e is EventRecord => e !== undefined);
    },
    async list(query) {
      return keysetPage(
        [...t.events.values()],
        query,
        (e) => e.type,
        () => null,
      );
    },
    pruneBefore: async (before, limit) => pruneMap(m, t.events, (e) => e.created < before, limit),
  };
}

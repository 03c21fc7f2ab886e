import type { DeliveryLogStore } from "../../../src/ports/public";
import { frozen, k2, keysetPage, pruneMap, type MemoryTx } from "../memory-tables";

export function deliveryLogStore(m: MemoryTx): DeliveryLogStore {
  const { t } = m;
  return {
    async insert(records) {
      for (const r of records) {
        if (t.deliveries.has(k2(r.accountId, r.id))) throw new Error(`duplicate delivery ${r.id}`);
      }
      for (const r of records) m.put(t.deliveries, k2(r.accountId, r.id), frozen(r));
    },
    async list(query) {
      const rows = [...t.deliveries.values()].filter((d) => d.endpointId === query.endpointId && (query.eventId === undefined || d.eventId === query.eventId));
      return keysetPage(
        rows,
        query,
        (d) => d.status,
        () => null,
      );
    },
    pruneBefore: async (before, limit) => pruneMap(m, t.deliveries, (d) => d.created < before, limit),
  };
}

import type { SimulatedChainStore, SimulatedTransferRecord } from "../../../src/ports/storage";
import { frozen, k2, type MemoryTx } from "../memory-tables";

const byInclusion = (a: SimulatedTransferRecord, b: SimulatedTransferRecord) =>
  (a.includedAt ?? 0) - (b.includedAt ?? 0) || (a.transferId < b.transferId ? -1 : a.transferId > b.transferId ? 1 : 0);

/** `SimulatedChainStore` over the memory tables (transactions there run one at a time). */
export function simulatedChainStore(m: MemoryTx): SimulatedChainStore {
  const t = m.t.simulated;
  const put = m.put.bind(m);
  return {
    async addToCounter(scope, delta) {
      const value = (t.counters.get(scope) ?? 0n) + delta;
      put(t.counters, scope, value);
      return value;
    },
    async getCounter(scope) {
      return t.counters.get(scope) ?? 0n;
    },

    async insertTransfers(records) {
      return records.map((record) => {
        const key = k2(record.chain, record.transferId);
        const existing = t.transfers.get(key);
        if (existing) return existing;
        const stored = frozen(record);
        put(t.transfers, key, stored);
        if (record.txHash !== null) put(t.hashes, k2(record.chain, record.txHash), key);
        return stored;
      });
    },
    async getTransfers(chain, transferIds) {
      const found = new Map<string, SimulatedTransferRecord>();
      for (const id of transferIds) {
        const record = t.transfers.get(k2(chain, id));
        if (record) found.set(id, record);
      }
      return found;
    },
    async findTransfersByHash(chain, txHashes) {
      const found = new Map<string, SimulatedTransferRecord>();
      for (const hash of txHashes) {
        const key = t.hashes.get(k2(chain, hash));
        const record = key === undefined ? undefined : t.transfers.get(key);
        if (record) found.set(hash, record);
      }
      return found;
    },
    async listInbound(chain, filter) {
      return [...t.transfers.values()]
        .filter(
          (r) =>
            r.chain === chain &&
            r.direction === "in" &&
            ((r.droppedAt === null && r.includedAt !== null && r.includedAt >= filter.includedFrom) ||
              (r.droppedAt !== null && r.droppedAt >= filter.droppedSince)),
        )
        .sort(byInclusion);
    },
    async reorganize(chain, range, moveTo, droppedAt) {
      let n = 0;
      for (const [key, r] of [...t.transfers]) {
        if (r.chain !== chain || r.includedAt === null || r.includedAt < range.from || r.includedAt > range.to) continue;
        if (r.direction === "out") put(t.transfers, key, frozen({ ...r, includedAt: moveTo }));
        else if (r.droppedAt === null) put(t.transfers, key, frozen({ ...r, droppedAt }));
        else continue;
        n++;
      }
      return n;
    },
  };
}

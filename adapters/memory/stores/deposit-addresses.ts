import type { DepositAddressStore } from "../../../src/ports/public";
import { frozen, k2, type MemoryTx } from "../memory-tables";

export function depositAddressStore(m: MemoryTx): DepositAddressStore {
  const { t } = m;
  return {
    async insert(records) {
      for (const r of records) {
        if (t.depositAddresses.has(k2(r.chain, r.address))) throw new Error(`deposit address ${r.address} exists on ${r.chain}`);
      }
      for (const r of records) m.put(t.depositAddresses, k2(r.chain, r.address), frozen(r));
    },
    async find(addresses) {
      const wanted = new Set(addresses);
      return [...t.depositAddresses.values()].filter((r) => wanted.has(r.address));
    },
  };
}

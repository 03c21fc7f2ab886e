import { ownerDead, type OwnerStore } from "../../../src/ports/public";
import { frozen, pruneMap, type MemoryTx } from "../memory-tables";

/** Whether `owner` may hold anything at `now` (see `ClaimRequest.owner`). */
export function ownerAlive(m: MemoryTx, owner: string, now: number): boolean {
  return !ownerDead(m.t.owners.get(owner), now);
}

export function ownerStore(m: MemoryTx): OwnerStore {
  const { t } = m;
  /** Declares `owners` dead at `now` and ends their due-work leases. */
  const bury = (owners: string[], now: number) => {
    for (const owner of owners) m.put(t.owners, owner, frozen({ ...t.owners.get(owner)!, deadAt: now }));
    const dead = new Set(owners);
    for (const w of [...t.work.values()]) {
      if (w.leaseOwner !== null && dead.has(w.leaseOwner)) m.put(t.work, w.id, frozen({ ...w, leaseOwner: null, leaseUntil: null }));
    }
  };
  return {
    async heartbeat(owner, now, until) {
      const record = t.owners.get(owner);
      if (ownerDead(record, now)) return false;
      m.put(t.owners, owner, frozen({ owner, aliveUntil: until, deadAt: null }));
      return true;
    },
    async reap(now) {
      const owners = [...t.owners.values()].filter((o) => o.deadAt === null && o.aliveUntil <= now).map((o) => o.owner);
      bury(owners, now);
      return owners;
    },
    async retire(owner, now) {
      const record = t.owners.get(owner);
      if (record && record.deadAt === null) bury([owner], now);
    },
    async getMany(owners) {
      const found = new Map();
      for (const owner of owners) {
        const record = t.owners.get(owner);
        if (record) found.set(owner, record);
      }
      return found;
    },
    prune: async (before, limit) => pruneMap(m, t.owners, (o) => o.deadAt !== null && o.deadAt < before, limit),
  };
}

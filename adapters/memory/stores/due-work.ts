import type { DueWorkKindStats, DueWorkRecord, WorkStore } from "../../../src/ports/public";
import { frozen, k2, type MemoryTx } from "../memory-tables";
import { ownerAlive } from "./owners";

/** Ready, due at `now`, and not leased (or its lease ran out): what a claim may take. */
export function claimable(w: DueWorkRecord, now: number): boolean {
  return w.status === "ready" && w.runAt <= now && (w.leaseUntil === null || w.leaseUntil <= now);
}

/** Claim order: soonest due first, then by id. */
export const byRunAt = (a: DueWorkRecord, b: DueWorkRecord): number => a.runAt - b.runAt || (a.id < b.id ? -1 : 1);

/** `w` leased to `owner` until `leaseUntil`, counting the attempt. */
export function leased(w: DueWorkRecord, owner: string, leaseUntil: number): DueWorkRecord {
  return frozen({ ...w, leaseOwner: owner, leaseUntil, attempts: w.attempts + 1 });
}

/** An item's key in the dedupe index: its dedupe key within its account (the engine's own work is one). */
const dedupeOf = (w: DueWorkRecord) => (w.dedupeKey ? k2(w.accountId ?? "", w.dedupeKey) : null);

export function workStore(m: MemoryTx): WorkStore {
  const { t } = m;
  /** Writes an item, keeping the dedupe-key index in step with it. */
  const save = (item: DueWorkRecord) => {
    const before = t.work.get(item.id);
    const [was, is] = [before ? dedupeOf(before) : null, dedupeOf(item)];
    if (was && was !== is) m.remove(t.workByDedupeKey, was);
    if (is) m.put(t.workByDedupeKey, is, item.id);
    m.put(t.work, item.id, item);
  };
  const drop = (id: string) => {
    const item = t.work.get(id);
    const key = item ? dedupeOf(item) : null;
    if (key) m.remove(t.workByDedupeKey, key);
    m.remove(t.work, id);
  };
  return {
    async enqueue(items) {
      for (const item of items) {
        const key = dedupeOf(item);
        if (key !== null && t.workByDedupeKey.has(key)) continue;
        save(frozen({ ...item, group: item.group ?? null, request: item.request ?? null }));
      }
    },
    async complete(id, owner) {
      if (t.work.get(id)?.leaseOwner !== owner) return false;
      drop(id);
      return true;
    },
    async releaseAllLeases(now) {
      let n = 0;
      for (const item of [...t.work.values()]) {
        if (item.status !== "ready" || item.leaseOwner === null || item.leaseUntil === null || item.leaseUntil <= now) continue;
        save(frozen({ ...item, leaseOwner: null, leaseUntil: null }));
        n++;
      }
      return n;
    },
    async release(id, owner, next) {
      const item = t.work.get(id);
      if (!item || item.leaseOwner !== owner) return false;
      save(
        frozen({
          ...item,
          runAt: next.runAt,
          lastError: next.lastError,
          status: next.dead ? "dead" : "ready",
          dedupeKey: next.dead ? null : item.dedupeKey,
          attempts: next.resetAttempts ? 0 : item.attempts,
          leaseOwner: null,
          leaseUntil: null,
        }),
      );
      return true;
    },
    async completeMany(ids, owner) {
      const done: string[] = [];
      for (const id of ids) {
        if (t.work.get(id)?.leaseOwner !== owner) continue;
        drop(id);
        done.push(id);
      }
      return done;
    },
    async releaseMany(owner, items) {
      const released: string[] = [];
      for (const { id, runAt, lastError } of items) {
        const item = t.work.get(id);
        if (!item || item.leaseOwner !== owner) continue;
        save(frozen({ ...item, runAt, lastError, status: "ready" as const, leaseOwner: null, leaseUntil: null }));
        released.push(id);
      }
      return released;
    },
    async takeNext({ kind, groups, owner, now, leaseUntil }) {
      if (!groups.length || !ownerAlive(m, owner, now)) return [];
      const wanted = new Map<string, number>();
      for (const g of groups) wanted.set(g, (wanted.get(g) ?? 0) + 1);
      const due = [...t.work.values()].filter((w) => w.kind === kind && w.group != null && wanted.has(w.group) && claimable(w, now)).sort(byRunAt);
      const taken: DueWorkRecord[] = [];
      for (const w of due) {
        const left = wanted.get(w.group!)!;
        if (left === 0) continue;
        wanted.set(w.group!, left - 1);
        const lease = leased(w, owner, leaseUntil);
        save(lease);
        taken.push(lease);
      }
      return taken;
    },
    async get(id) {
      return t.work.get(id) ?? null;
    },
    async stats(now) {
      const byKind = new Map<string, DueWorkKindStats>();
      for (const w of t.work.values()) {
        let k = byKind.get(w.kind);
        if (!k) byKind.set(w.kind, (k = { kind: w.kind, due: 0, leased: 0, scheduled: 0, dead: 0, oldestDueAt: null }));
        if (w.status === "dead") k.dead++;
        else if (w.leaseUntil !== null && w.leaseUntil > now) k.leased++;
        else if (w.runAt <= now) {
          k.due++;
          if (k.oldestDueAt === null || w.runAt < k.oldestDueAt) k.oldestDueAt = w.runAt;
        } else k.scheduled++;
      }
      return [...byKind.values()];
    },
    async nextRunAt() {
      let next: number | null = null;
      for (const w of t.work.values()) {
        if (w.status !== "ready") continue;
        const at = Math.max(w.runAt, w.leaseUntil ?? 0);
        if (next === null || at < next) next = at;
      }
      return next;
    },
  };
}

import { compareKeys, isCustomerBook, type BalanceRecord, type LedgerEntryRecord, type LedgerPageQuery, type LedgerStore } from "../../../src/ports/public";
import { balanceKey, frozen, k2, type MemoryTx } from "../memory-tables";

export function ledgerStore(m: MemoryTx): LedgerStore {
  const { t } = m;
  /** One keyset page (`LedgerStore.pageEntries`). */
  const page = (q: LedgerPageQuery): LedgerEntryRecord[] => {
    const sign = q.order === "asc" ? 1 : -1;
    const compare = (a: { created: number; id: string }, b: { created: number; id: string }) =>
      sign * (a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return t.entries
      .filter(
        (e) =>
          e.accountId === q.accountId &&
          isCustomerBook(e.book) &&
          (q.createdGte === undefined || e.created >= q.createdGte) &&
          (q.createdLt === undefined || e.created < q.createdLt) &&
          (q.resourcePrefix === undefined || (e.resource?.startsWith(q.resourcePrefix) ?? false)) &&
          (q.after === undefined || compare(e, q.after) > 0),
      )
      .sort(compare)
      .slice(0, q.limit);
  };
  return {
    async lockBalances(keys) {
      const pairs = new Set<string>();
      for (const key of keys) {
        pairs.add(k2(key.accountId, key.asset));
        const k = balanceKey(key);
        if (!t.balances.has(k)) m.put(t.balances, k, frozen({ ...key, amount: 0n }));
      }
      return [...t.balances.values()].filter((b) => pairs.has(k2(b.accountId, b.asset))).sort(compareKeys);
    },
    async appendEntries(entries) {
      const next = new Map<string, BalanceRecord>();
      for (const e of entries) {
        const k = balanceKey(e);
        const row = next.get(k) ?? t.balances.get(k);
        if (!row) throw new Error(`balance row ${k} was not locked before appending`);
        next.set(k, frozen({ ...row, amount: row.amount + e.amount }));
      }
      for (const row of next.values()) {
        if (isCustomerBook(row.book) && row.amount < 0n) throw new Error(`balance ${balanceKey(row)} would go negative`);
      }
      for (const e of entries) {
        if (t.postingLines.has(`${e.accountId}\u0000${e.postingId}\u0000${e.line}`)) {
          throw new Error(`posting ${e.postingId} line ${e.line} of ${e.accountId} exists already`);
        }
      }
      for (const [k, row] of next) m.put(t.balances, k, row);
      for (const e of entries) m.put(t.postingLines, `${e.accountId}\u0000${e.postingId}\u0000${e.line}`, e.id);
      m.append(t.entries, frozen(entries));
    },
    async listBalances(accountId) {
      return [...t.balances.values()].filter((b) => b.accountId === accountId).sort(compareKeys);
    },
    async listBalanceTotals({ livemode, chain }) {
      const sums = new Map<string, { asset: string; book: BalanceRecord["book"]; amount: bigint }>();
      for (const b of t.balances.values()) {
        if (b.chain !== chain || t.accounts.get(b.accountId)?.livemode !== livemode) continue;
        const k = `${b.asset}\u0000${b.book}`;
        const sum = sums.get(k) ?? { asset: b.asset, book: b.book, amount: 0n };
        sums.set(k, { ...sum, amount: sum.amount + b.amount });
      }
      return [...sums.values()].sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : a.book < b.book ? -1 : a.book > b.book ? 1 : 0));
    },
    async listActiveReservations({ livemode, chain }) {
      return [...t.reservations.values()]
        .filter((r) => r.status === "active" && r.chain === chain && t.accounts.get(r.accountId)?.livemode === livemode)
        .sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async listEntries(accountId, filter) {
      const ids = filter.ids ? new Set(filter.ids) : null;
      return t.entries.filter(
        (e) => e.accountId === accountId && (filter.resource === undefined || e.resource === filter.resource) && (ids === null || ids.has(e.id)),
      );
    },
    async pageEntries(q) {
      return page(q);
    },
    async pageEntriesEach(q, entry) {
      const entries = page(q);
      for (const e of entries) entry(e);
      return entries.length;
    },
    async insertReservations(reservations) {
      const keys = new Map(reservations.map((r) => [k2(r.accountId, r.id), r]));
      for (const [k, r] of keys) if (t.reservations.has(k)) throw new Error(`duplicate reservation ${r.id}`);
      if (keys.size < reservations.length) throw new Error("duplicate reservations in one insert");
      for (const [k, r] of keys) m.put(t.reservations, k, frozen(r));
    },
    async lockReservation(accountId, id) {
      return t.reservations.get(k2(accountId, id)) ?? null;
    },
    async lockReservations(accountId, ids) {
      return [...new Set(ids)]
        .sort()
        .map((id) => t.reservations.get(k2(accountId, id)))
        .filter((r) => r !== undefined);
    },
    async updateReservation(reservation) {
      const k = k2(reservation.accountId, reservation.id);
      if (!t.reservations.has(k)) throw new Error(`no reservation ${reservation.id}`);
      if (reservation.remaining < 0n) throw new Error("reservation remaining would go negative");
      m.put(t.reservations, k, frozen(reservation));
    },
  };
}

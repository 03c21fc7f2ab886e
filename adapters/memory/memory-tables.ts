import type {
  AccountRecord,
  ApiKeyRecord,
  BalanceKey,
  BalanceRecord,
  DeliveryLogRecord,
  DepositAddressRecord,
  DueWorkRecord,
  EventRecord,
  IdempotencyRecord,
  KeysetQuery,
  LedgerEntryRecord,
  OwnerRecord,
  ReservationRecord,
  ResourceRecord,
  Json,
} from "../../src/ports/public";
import type { SortedKeys } from "./sorted-keys";

/** Everything the memory adapter keeps; `dump()` returns a deep copy for inspection. */
export interface MemoryTables {
  accounts: Map<string, AccountRecord>;
  apiKeys: Map<string, ApiKeyRecord>;
  balances: Map<string, BalanceRecord>;
  entries: LedgerEntryRecord[];
  /** (account, posting, line) → entry id: the unique index of `ledger_entries`. */
  postingLines: Map<string, string>;
  reservations: Map<string, ReservationRecord>;
  resources: Map<string, ResourceRecord>;
  events: Map<string, EventRecord>;
  idempotency: Map<string, IdempotencyRecord>;
  work: Map<string, DueWorkRecord>;
  /** Processes that heartbeat, by owner (`stores/owners.ts`). */
  owners: Map<string, OwnerRecord>;
  /** Account and dedupe key → id of the work item holding it (the unique key `(account_id, dedupe_key)` of `due_work`). */
  workByDedupeKey: Map<string, string>;
  meta: Map<string, string>;
  rateLimits: Map<string, { key: string; at: number; count: number }>;
  deliveries: Map<string, DeliveryLogRecord>;
  depositAddresses: Map<string, DepositAddressRecord>;
  /** What adapters keep through the adapter-state seam: namespace → key → JSON value (`stores/adapter-state.ts`). */
  adapterState: Map<string, Map<string, Json>>;
  /** Per namespace, its keys in order (the primary key's index): left out of `dump()`. */
  adapterStateOrder: Map<string, SortedKeys>;
}

export function emptyTables(): MemoryTables {
  return {
    accounts: new Map(),
    apiKeys: new Map(),
    balances: new Map(),
    entries: [],
    postingLines: new Map(),
    reservations: new Map(),
    resources: new Map(),
    events: new Map(),
    idempotency: new Map(),
    work: new Map(),
    owners: new Map(),
    workByDedupeKey: new Map(),
    meta: new Map(),
    rateLimits: new Map(),
    deliveries: new Map(),
    depositAddresses: new Map(),
    adapterState: new Map(),
    adapterStateOrder: new Map(),
  };
}

/** What each store of one transaction is built on (`stores/*.ts`). */
export interface MemoryTx {
  readonly t: MemoryTables;
  /** Sets `map[key] = value`, remembering how to undo it. */
  put<V>(map: Map<string, V>, key: string, value: V): void;
  /** Deletes `map[key]`, remembering how to undo it. */
  remove<V>(map: Map<string, V>, key: string): void;
  /** Appends to an array table, remembering how to undo it. */
  append<V>(array: V[], items: readonly V[]): void;
  /** Runs `fn` when the transaction is undone (after the undoing of what was done after this call). */
  onUndo(fn: () => void): void;
}

/** A transaction's view over the tables, with its undo log. */
export function memoryTx(t: MemoryTables, undo: (() => void)[]): MemoryTx {
  return {
    t,
    put(map, key, value) {
      const had = map.has(key);
      const old = map.get(key);
      map.set(key, value);
      undo.push(() => (had ? map.set(key, old!) : map.delete(key)));
    },
    remove(map, key) {
      if (!map.has(key)) return;
      const old = map.get(key)!;
      map.delete(key);
      undo.push(() => map.set(key, old));
    },
    append(array, items) {
      const start = array.length;
      array.push(...items);
      undo.push(() => array.splice(start));
    },
    onUndo(fn) {
      undo.push(fn);
    },
  };
}

/**
 * A deep copy that is frozen: what the store keeps. Reads hand stored values out as they are
 * (nobody can change them: a mutation throws), so only writes pay for a copy.
 */
export function frozen<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozen)) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = frozen((value as Record<string, unknown>)[key]);
    // a key named __proto__ (JSON may hold one, e.g. in metadata) is data, not the prototype
    if (key === "__proto__") Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return Object.freeze(out) as T;
}

/** A two-part map key. */
export const k2 = (a: string, b: string) => `${a}\u0000${b}`;
export const balanceKey = (k: BalanceKey) => `${k.accountId}\u0000${k.asset}\u0000${k.chain}\u0000${k.book}`;

/** Deletes at most `limit` rows of `map` that `old` says are past retention; returns how many. */
export function pruneMap<V>(m: MemoryTx, map: Map<string, V>, old: (row: V) => boolean, limit: number): number {
  const keys = [...map.entries()].filter(([, row]) => old(row)).slice(0, limit);
  for (const [k] of keys) m.remove(map, k);
  return keys.length;
}

/** The keyset page of `KeysetQuery` over rows in memory (by created, then id: newest first, or oldest first with `order: "asc"`). */
export function keysetPage<R extends { accountId: string; id: string; created: number }>(
  rows: R[],
  q: KeysetQuery,
  status: (r: R) => string | null,
  reference: (r: R) => string | null,
  metadata: (r: R) => unknown = () => undefined,
): R[] {
  // 1: newest first (a row comes after `after` when it is older); -1: oldest first
  const sign = q.order === "asc" ? -1 : 1;
  return rows
    .filter(
      (r) =>
        r.accountId === q.accountId &&
        (q.status === undefined || status(r) === q.status) &&
        (q.createdGte === undefined || r.created >= q.createdGte) &&
        (q.createdLt === undefined || r.created < q.createdLt) &&
        (q.search === undefined || r.id === q.search || (reference(r)?.startsWith(q.search) ?? false)) &&
        (q.metadata === undefined || (metadata(r) as Record<string, unknown> | undefined)?.[q.metadata.key] === q.metadata.value) &&
        (q.after === undefined || sign * (q.after.created - r.created || (q.after.id < r.id ? -1 : q.after.id > r.id ? 1 : 0)) > 0),
    )
    .sort((a, b) => sign * (b.created - a.created || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)))
    .slice(0, q.limit);
}

import { compareKeys } from "../../src/ledger/ledger";
import { isCustomerBook } from "../../src/ledger/postings";
import type {
  AccountRecord,
  ApiKeyRecord,
  BalanceKey,
  BalanceRecord,
  ClaimRequest,
  DeliveryLogRecord,
  DepositAddressRecord,
  DueWorkRecord,
  EventRecord,
  IdempotencyRecord,
  KeysetQuery,
  LedgerEntryRecord,
  ReservationRecord,
  ResourceRecord,
  StorageAdapter,
  StorageCapabilities,
  StorageTx,
} from "../../src/ports/storage";
import { Mutex } from "../../src/concurrency/mutex";

/** Everything the memory adapter keeps; `dump()` returns a deep copy for inspection. */
export interface MemoryTables {
  accounts: Map<string, AccountRecord>;
  apiKeys: Map<string, ApiKeyRecord>;
  balances: Map<string, BalanceRecord>;
  entries: LedgerEntryRecord[];
  reservations: Map<string, ReservationRecord>;
  resources: Map<string, ResourceRecord>;
  events: Map<string, EventRecord>;
  idempotency: Map<string, IdempotencyRecord>;
  work: Map<string, DueWorkRecord>;
  meta: Map<string, string>;
  rateLimits: Map<string, { key: string; windowStart: number; count: number }>;
  deliveries: Map<string, DeliveryLogRecord>;
  depositAddresses: Map<string, DepositAddressRecord>;
}

const clone = <T>(value: T): T => structuredClone(value);

/**
 * A deep copy that is frozen: what the store keeps. Reads hand stored values out as they are
 * (nobody can change them: a mutation throws), so only writes pay for a copy.
 */
function frozen<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozen)) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = frozen((value as Record<string, unknown>)[key]);
  return Object.freeze(out) as T;
}
const k2 = (a: string, b: string) => `${a}\u0000${b}`;
const balanceKey = (k: BalanceKey) => `${k.accountId}\u0000${k.asset}\u0000${k.chain}\u0000${k.book}`;

/**
 * Storage in process memory: for tests, examples and single-process hosts that need no
 * durability. Transactions run one at a time (a mutex), so they are serializable; a transaction
 * that throws is undone from its undo log. Records are copied and deep-frozen when written and
 * handed out frozen when read, so callers can never change stored state through what they hold
 * (trying to throws, which also catches code that mutates what storage returned).
 */
export class MemoryStorage implements StorageAdapter {
  readonly name = "memory";
  readonly capabilities: StorageCapabilities = { concurrentTransactions: false, supportsSkipLocked: false };
  private readonly t: MemoryTables = {
    accounts: new Map(),
    apiKeys: new Map(),
    balances: new Map(),
    entries: [],
    reservations: new Map(),
    resources: new Map(),
    events: new Map(),
    idempotency: new Map(),
    work: new Map(),
    meta: new Map(),
    rateLimits: new Map(),
    deliveries: new Map(),
    depositAddresses: new Map(),
  };
  private readonly mutex = new Mutex();

  async init(): Promise<void> {}

  async close(): Promise<void> {}

  /** A deep copy of every table: the conformance suite's independent read path. */
  dump(): MemoryTables {
    return clone(this.t);
  }

  transaction<T>(fn: (tx: StorageTx) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const undo: (() => void)[] = [];
      try {
        return await fn(this.txView(undo));
      } catch (e) {
        for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
        throw e;
      }
    });
  }

  claimDueWork(request: ClaimRequest): Promise<DueWorkRecord[]> {
    return this.mutex.run(async () => {
      const { now, onlyKinds, exceptKinds, groupLimit } = request;
      const leasedPerGroup = new Map<string, number>();
      if (groupLimit !== undefined) {
        for (const w of this.t.work.values()) {
          if (w.group && w.leaseUntil !== null && w.leaseUntil > now) {
            leasedPerGroup.set(w.group, (leasedPerGroup.get(w.group) ?? 0) + 1);
          }
        }
      }
      const due = [...this.t.work.values()]
        .filter(
          (w) =>
            w.status === "ready" &&
            w.runAt <= now &&
            (w.leaseUntil === null || w.leaseUntil <= now) &&
            (onlyKinds === undefined || onlyKinds.includes(w.kind)) &&
            (exceptKinds === undefined || !exceptKinds.includes(w.kind)),
        )
        .sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
      const claimed: DueWorkRecord[] = [];
      for (const w of due) {
        if (claimed.length >= request.limit) break;
        if (groupLimit !== undefined && w.group) {
          const leased = leasedPerGroup.get(w.group) ?? 0;
          if (leased >= groupLimit) continue;
          leasedPerGroup.set(w.group, leased + 1);
        }
        const leased = frozen({ ...w, leaseOwner: request.owner, leaseUntil: now + request.leaseMs, attempts: w.attempts + 1 });
        this.t.work.set(w.id, leased);
        claimed.push(leased);
      }
      return claimed;
    });
  }

  private txView(undo: (() => void)[]): StorageTx {
    const t = this.t;
    /** Sets map[key] = value, remembering how to undo it. */
    const put = <V>(map: Map<string, V>, key: string, value: V) => {
      const had = map.has(key);
      const old = map.get(key);
      map.set(key, value);
      undo.push(() => (had ? map.set(key, old as V) : map.delete(key)));
    };
    const remove = <V>(map: Map<string, V>, key: string) => {
      if (!map.has(key)) return;
      const old = map.get(key) as V;
      map.delete(key);
      undo.push(() => map.set(key, old));
    };

    return {
      accounts: {
        async insertAccount(account) {
          if (t.accounts.has(account.id)) throw new Error(`duplicate account ${account.id}`);
          put(t.accounts, account.id, frozen(account));
        },
        async getAccount(id) {
          return (t.accounts.get(id) ?? null);
        },
        async updateAccountSettings(id, settings) {
          const account = t.accounts.get(id);
          if (!account) throw new Error(`no account ${id}`);
          put(t.accounts, id, frozen({ ...account, settings }));
        },
        async insertApiKey(key) {
          if (t.apiKeys.has(key.hash)) return false;
          put(t.apiKeys, key.hash, frozen(key));
          return true;
        },
        async findApiKey(hash) {
          return (t.apiKeys.get(hash) ?? null);
        },
      },

      ledger: {
        async lockBalances(keys) {
          const pairs = new Set<string>();
          for (const key of keys) {
            pairs.add(k2(key.accountId, key.asset));
            const k = balanceKey(key);
            if (!t.balances.has(k)) put(t.balances, k, frozen({ ...key, amount: 0n }));
          }
          return ([...t.balances.values()].filter((b) => pairs.has(k2(b.accountId, b.asset))).sort(compareKeys));
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
            if (isCustomerBook(row.book) && row.amount < 0n) {
              throw new Error(`balance ${balanceKey(row)} would go negative`);
            }
          }
          for (const [k, row] of next) put(t.balances, k, row);
          const start = t.entries.length;
          t.entries.push(...frozen(entries));
          undo.push(() => t.entries.splice(start));
        },
        async listBalances(accountId) {
          return ([...t.balances.values()].filter((b) => b.accountId === accountId).sort(compareKeys));
        },
        async listEntries(accountId, filter) {
          const ids = filter.ids ? new Set(filter.ids) : null;
          return (
            t.entries.filter(
              (e) =>
                e.accountId === accountId &&
                (filter.resource === undefined || e.resource === filter.resource) &&
                (ids === null || ids.has(e.id)),
            )
          );
        },
        async insertReservation(reservation) {
          const k = k2(reservation.accountId, reservation.id);
          if (t.reservations.has(k)) throw new Error(`duplicate reservation ${reservation.id}`);
          put(t.reservations, k, frozen(reservation));
        },
        async lockReservation(accountId, id) {
          return (t.reservations.get(k2(accountId, id)) ?? null);
        },
        async updateReservation(reservation) {
          const k = k2(reservation.accountId, reservation.id);
          if (!t.reservations.has(k)) throw new Error(`no reservation ${reservation.id}`);
          if (reservation.remaining < 0n) throw new Error("reservation remaining would go negative");
          put(t.reservations, k, frozen(reservation));
        },
      },

      resources: {
        async insert(records) {
          for (const r of records) {
            if (t.resources.has(k2(r.accountId, r.id))) throw new Error(`duplicate resource ${r.id}`);
          }
          for (const r of records) put(t.resources, k2(r.accountId, r.id), frozen(r));
        },
        async get(accountId, id) {
          return (t.resources.get(k2(accountId, id)) ?? null);
        },
        async getMany(accountId, ids) {
          return (ids.map((id) => t.resources.get(k2(accountId, id))).filter((r): r is ResourceRecord => !!r));
        },
        async delete(accountId, id) {
          const k = k2(accountId, id);
          if (!t.resources.has(k)) return false;
          remove(t.resources, k);
          return true;
        },
        async update(record) {
          const k = k2(record.accountId, record.id);
          const current = t.resources.get(k);
          if (!current || current.version !== record.version - 1) return false;
          put(t.resources, k, frozen(record));
          return true;
        },
        async list(query) {
          return (
            keysetPage(
              [...t.resources.values()].filter((r) => r.kind === query.kind),
              query,
              (r) => r.status,
              (r) => r.reference,
            )
          );
        },
      },

      events: {
        async insert(events) {
          for (const e of events) put(t.events, k2(e.accountId, e.id), frozen(e));
        },
        async get(accountId, id) {
          return (t.events.get(k2(accountId, id)) ?? null);
        },
        async getMany(accountId, ids) {
          return ids.map((id) => t.events.get(k2(accountId, id))).filter((e): e is EventRecord => e !== undefined);
        },
        async list(query) {
          return (keysetPage([...t.events.values()], query, (e) => e.type, () => null));
        },
        async pruneBefore(before, limit) {
          const old = [...t.events.entries()].filter(([, e]) => e.created < before).slice(0, limit);
          for (const [k] of old) remove(t.events, k);
          return old.length;
        },
      },

      idempotency: {
        async claim(record) {
          const k = k2(record.accountId, record.key);
          const existing = t.idempotency.get(k);
          if (existing) return { inserted: false, existing };
          put(t.idempotency, k, frozen(record));
          return { inserted: true };
        },
        async put(record) {
          put(t.idempotency, k2(record.accountId, record.key), frozen(record));
        },
        async delete(accountId, key) {
          remove(t.idempotency, k2(accountId, key));
        },
        async pruneExpired(now, limit) {
          const old = [...t.idempotency.entries()].filter(([, r]) => r.expiresAt <= now).slice(0, limit);
          for (const [k] of old) remove(t.idempotency, k);
          return old.length;
        },
      },

      work: {
        async enqueue(items) {
          const keys = new Set(
            [...t.work.values()].map((w) => w.dedupeKey).filter((d): d is string => d !== null),
          );
          for (const item of items) {
            if (item.dedupeKey !== null && keys.has(item.dedupeKey)) continue;
            if (item.dedupeKey !== null) keys.add(item.dedupeKey);
            put(t.work, item.id, frozen({ ...item, group: item.group ?? null }));
          }
        },
        async complete(id, owner) {
          const item = t.work.get(id);
          if (!item || item.leaseOwner !== owner) return false;
          remove(t.work, id);
          return true;
        },
        async release(id, owner, next) {
          const item = t.work.get(id);
          if (!item || item.leaseOwner !== owner) return false;
          put(t.work, id, frozen({
            ...item,
            runAt: next.runAt,
            lastError: next.lastError,
            status: next.dead ? "dead" : "ready",
            dedupeKey: next.dead ? null : item.dedupeKey,
            attempts: next.resetAttempts ? 0 : item.attempts,
            leaseOwner: null,
            leaseUntil: null,
          }));
          return true;
        },
        async completeMany(ids, owner) {
          const done: string[] = [];
          for (const id of ids) {
            if (t.work.get(id)?.leaseOwner !== owner) continue;
            remove(t.work, id);
            done.push(id);
          }
          return done;
        },
        async releaseMany(owner, items) {
          const released: string[] = [];
          for (const { id, runAt, lastError } of items) {
            const item = t.work.get(id);
            if (!item || item.leaseOwner !== owner) continue;
            put(t.work, id, frozen({ ...item, runAt, lastError, status: "ready" as const, leaseOwner: null, leaseUntil: null }));
            released.push(id);
          }
          return released;
        },
        async get(id) {
          return (t.work.get(id) ?? null);
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
      },

      rateLimits: {
        async hit(key, windowStart) {
          const k = k2(key, String(windowStart));
          const row = t.rateLimits.get(k) ?? { key, windowStart, count: 0 };
          put(t.rateLimits, k, frozen({ ...row, count: row.count + 1 }));
          return row.count + 1;
        },
        async pruneBefore(before, limit) {
          const old = [...t.rateLimits.entries()].filter(([, r]) => r.windowStart < before).slice(0, limit);
          for (const [k] of old) remove(t.rateLimits, k);
          return old.length;
        },
      },

      deliveries: {
        async insert(records) {
          for (const r of records) {
            if (t.deliveries.has(k2(r.accountId, r.id))) throw new Error(`duplicate delivery ${r.id}`);
          }
          for (const r of records) put(t.deliveries, k2(r.accountId, r.id), frozen(r));
        },
        async list(query) {
          const rows = [...t.deliveries.values()].filter((d) => d.endpointId === query.endpointId);
          return keysetPage(rows, query, (d) => d.status, () => null);
        },
        async pruneBefore(before, limit) {
          const old = [...t.deliveries.entries()].filter(([, d]) => d.created < before).slice(0, limit);
          for (const [k] of old) remove(t.deliveries, k);
          return old.length;
        },
      },

      meta: {
        async get(key) {
          return t.meta.get(key) ?? null;
        },
        async setIfAbsent(key, value) {
          const existing = t.meta.get(key);
          if (existing !== undefined) return existing;
          put(t.meta, key, value);
          return value;
        },
        async set(key, value) {
          put(t.meta, key, value);
        },
        async raise(key, value) {
          const stored = t.meta.get(key);
          const next = stored === undefined ? value : Math.max(Number(stored), value);
          put(t.meta, key, String(next));
          return next;
        },
      },

      depositAddresses: {
        async insert(records) {
          for (const r of records) {
            if (t.depositAddresses.has(k2(r.chain, r.address))) throw new Error(`deposit address ${r.address} exists on ${r.chain}`);
          }
          for (const r of records) put(t.depositAddresses, k2(r.chain, r.address), frozen(r));
        },
        async find(addresses) {
          const wanted = new Set(addresses);
          return [...t.depositAddresses.values()].filter((r) => wanted.has(r.address));
        },
      },
    };
  }
}

/** The keyset page of `KeysetQuery` over rows in memory (newest first by created, then id). */
function keysetPage<R extends { accountId: string; id: string; created: number }>(
  rows: R[],
  q: KeysetQuery,
  status: (r: R) => string | null,
  reference: (r: R) => string | null,
): R[] {
  return rows
    .filter(
      (r) =>
        r.accountId === q.accountId &&
        (q.status === undefined || status(r) === q.status) &&
        (q.createdGte === undefined || r.created >= q.createdGte) &&
        (q.createdLt === undefined || r.created < q.createdLt) &&
        (q.search === undefined || r.id === q.search || (reference(r)?.startsWith(q.search) ?? false)) &&
        (q.after === undefined || r.created < q.after.created || (r.created === q.after.created && r.id < q.after.id)),
    )
    .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, q.limit);
}

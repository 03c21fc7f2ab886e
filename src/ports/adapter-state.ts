import type { CommitOptions } from "./storage";
import type { Json } from "./storage/json";

/**
 * The one seam where adapters keep state of their own in the engine's storage: an ordered
 * key-value store per namespace, inside storage transactions. A chain or venue adapter that must
 * remember something across calls and processes (counters it hands out, what it signed before it
 * sent it, how far it has read) keeps it here, so every engine process on one database shares it,
 * a restart loses none of it, and any storage adapter serves any such adapter: the storage knows
 * keys, JSON values and ranges, never what they mean. The engine itself never reads it.
 *
 * Reached through `StorageAdapter.adapterState(namespace)`: the host gives the adapter the
 * engine's storage (or the handle itself), and the adapter opens its own transactions on it.
 * Each adapter owns one namespace and lays its records out on keys as it likes (docs/adapters.md
 * shows a keyspace); secondary indexes are keys it writes in the same transaction.
 *
 * Keys are strings of 1 to 512 UTF-16 code units, well formed (no unpaired surrogate), without
 * U+0000 (`assertStateKey`), compared in UTF-8 byte order, which is the order of code points
 * (`compareStateKeys`; PostgreSQL's `COLLATE "C"`). Values are JSON: what `JSON.stringify` makes
 * of a value and `JSON.parse` reads back (a `bigint` must be encoded by the adapter that owns the
 * namespace, e.g. as a decimal string). Every method takes many keys at once, so a call costs
 * one statement on a database however many records it touches.
 */
export interface AdapterStateStore {
  /** The namespace this handle reads and writes; nothing outside it is visible through it. */
  readonly namespace: string;
  /**
   * Runs `fn` in one storage transaction over this namespace's records: commits when it resolves,
   * rolls back every write when it throws (and rethrows the same error). The storage may run
   * `fn` again on a serialization failure or deadlock, so `fn` must touch only `state` (and
   * decide the same way) until it returns. Called by the adapter that owns the namespace, outside
   * any engine transaction; it is a transaction of its own and never joins one of the engine's.
   */
  transaction<T>(fn: (state: AdapterStateTx) => Promise<T>, options?: CommitOptions): Promise<T>;
}

/**
 * One transaction's view of a namespace. Every write commits or rolls back with the transaction;
 * reads see the transaction's own writes. Keys passed in must satisfy `assertStateKey` (the
 * storage throws a TypeError otherwise, writing nothing).
 */
export interface AdapterStateTx {
  /**
   * The values of those `keys` that exist, by key (absent keys are absent from the map). With
   * `lock`, the keys that exist stay locked until the transaction ends: another transaction's
   * locking read, `put`, `delete` or `increment` of them waits. A key that does not exist is not
   * locked; to lock a key whether or not it exists, keep a counter there and `increment` it (by
   * zero).
   */
  get(keys: Iterable<string>, options?: { lock?: boolean }): Promise<Map<string, Json>>;
  /**
   * Inserts each entry whose key does not exist; leaves an existing one unchanged. Answers every
   * key given with the value stored under it now and whether this call inserted it (a key given
   * twice: the first value given). A concurrent transaction inserting the same key makes this
   * call wait until it ends, then answers its value (or inserts, if it rolled back), so of two
   * racing inserts exactly one has `inserted: true`.
   */
  insert(entries: Iterable<readonly [string, Json]>): Promise<Map<string, { value: Json; inserted: boolean }>>;
  /** Stores each entry, replacing what was there (a key given twice: the last value). */
  put(entries: Iterable<readonly [string, Json]>): Promise<void>;
  /** Deletes those of `keys` that exist; returns how many did (a key given twice counts once). */
  delete(keys: Iterable<string>): Promise<number>;
  /** Deletes every key in `range`; returns how many. */
  deleteRange(range: StateRange): Promise<number>;
  /**
   * The entries in `range` in key order (descending with `reverse`), at most `limit` of them
   * (first ones of that order). Takes no locks.
   */
  list(range: StateRange, options?: { limit?: number; reverse?: boolean }): Promise<StateEntry[]>;
  /**
   * Adds each delta (any sign, zero too) to a counter, a missing counter starting at zero, and
   * answers the new values by key. Counters are stored as JSON strings of decimal integers
   * (`"-12"`: `decodeCounter` reads one) and may exceed 64 bits; a key holding anything else
   * makes the call fail. Each counter stays locked until the transaction ends (an `increment` by
   * zero creates and locks one), so concurrent transactions wait and never lose an addition. The
   * same key twice in one call adds both.
   */
  increment(deltas: Iterable<readonly [string, bigint]>): Promise<Map<string, bigint>>;
}

/**
 * Keys to read or delete: those starting with `prefix` (when given), at or after `from` (when
 * given), and before `to` (when given), all compared in key order. `{}` is the whole namespace.
 */
export interface StateRange {
  readonly prefix?: string;
  /** Inclusive. */
  readonly from?: string;
  /** Exclusive. */
  readonly to?: string;
}

/** One record of a namespace, as `list` answers it. */
export interface StateEntry {
  readonly key: string;
  readonly value: Json;
}

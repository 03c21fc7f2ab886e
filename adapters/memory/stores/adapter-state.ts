import { assertStateKey, decodeCounter, stateRangeBounds, type AdapterStateTx, type StateEntry, type StateRange, type Json } from "../../../src/ports/public";
import { frozen, type MemoryTx } from "../memory-tables";
import { lowerBound, SortedKeys } from "../sorted-keys";

/**
 * `AdapterStateTx` of one namespace over the memory tables. Transactions run one at a time, so
 * locks hold by construction. Values are stored as JSON makes them (stringified and parsed, so
 * they read back exactly as from a database) and frozen.
 */
export function adapterStateTx(m: MemoryTx, namespace: string): AdapterStateTx {
  let values = m.t.adapterState.get(namespace);
  let order = m.t.adapterStateOrder.get(namespace);
  if (!values || !order) {
    values = new Map();
    order = new SortedKeys();
    m.t.adapterState.set(namespace, values);
    m.t.adapterStateOrder.set(namespace, order);
  }
  const map = values;
  const sorted = order;
  const has = (key: string) => map.has(key);
  const set = (key: string, value: Json) => {
    if (!map.has(key)) sorted.note(key);
    m.put(map, key, value);
  };
  const remove = (key: string) => {
    if (!map.has(key)) return false;
    m.remove(map, key);
    m.onUndo(() => sorted.note(key)); // back in the map: back in the order
    return true;
  };
  const keysIn = (range: StateRange): string[] => {
    const { lower, upper, empty } = stateRangeBounds(range);
    if (empty) return [];
    const keys = sorted.ordered(has);
    const start = lower === null ? 0 : lowerBound(keys, lower);
    const end = upper === null ? keys.length : lowerBound(keys, upper);
    return keys.slice(start, end).filter(has);
  };
  return {
    async get(keys) {
      const found = new Map<string, Json>();
      for (const key of checked(keys)) {
        if (map.has(key)) found.set(key, map.get(key)!);
      }
      return found;
    },
    async insert(entries) {
      const given = checkedEntries(entries);
      const answers = new Map<string, { value: Json; inserted: boolean }>();
      for (const [key, value] of given) {
        if (answers.has(key)) continue;
        if (map.has(key)) {
          answers.set(key, { value: map.get(key)!, inserted: false });
        } else {
          set(key, value);
          answers.set(key, { value, inserted: true });
        }
      }
      return answers;
    },
    async put(entries) {
      for (const [key, value] of checkedEntries(entries)) set(key, value);
    },
    async delete(keys) {
      let n = 0;
      for (const key of new Set(checked(keys))) if (remove(key)) n++;
      return n;
    },
    async deleteRange(range) {
      const keys = keysIn(range);
      for (const key of keys) remove(key);
      return keys.length;
    },
    async list(range, options = {}) {
      const keys = keysIn(range);
      if (options.reverse) keys.reverse();
      const limited = options.limit === undefined ? keys : keys.slice(0, Math.max(0, options.limit));
      return limited.map((key): StateEntry => ({ key, value: map.get(key)! }));
    },
    async increment(deltas) {
      const given: [string, bigint][] = [];
      for (const [key, delta] of deltas) {
        assertStateKey(key);
        if (typeof delta !== "bigint") throw new TypeError(`increment of ${key}: the delta is not a bigint`);
        given.push([key, delta]);
      }
      // every counter read before any is written: a key holding no counter fails the call whole
      const start = new Map(given.map(([key]) => [key, decodeCounter(map.get(key))]));
      const next = new Map<string, bigint>();
      for (const [key, delta] of given) next.set(key, (next.get(key) ?? start.get(key)!) + delta);
      for (const [key, value] of next) set(key, value.toString());
      return next;
    },
  };
}

function checked(keys: Iterable<string>): string[] {
  const out = [...keys];
  for (const key of out) assertStateKey(key);
  return out;
}

/** The entries with their values as JSON makes them, frozen; every key checked before anything is written. */
function checkedEntries(entries: Iterable<readonly [string, Json]>): [string, Json][] {
  const out: [string, Json][] = [];
  for (const [key, value] of entries) {
    assertStateKey(key);
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`the value of ${key} is not JSON`);
    out.push([key, frozen(JSON.parse(text) as Json)]);
  }
  return out;
}

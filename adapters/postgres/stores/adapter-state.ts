import {
  assertStateKey,
  compareStateKeys,
  stateRangeBounds,
  type AdapterStateTx,
  type StateEntry,
  type StateRange,
  type Json,
} from "../../../src/ports/public";
import { PLAN_EACH_TIME } from "../driver";
import type { BufferedUpdate } from "../buffered-update";
import type { PgTxContext, Row } from "../pg-tx";
import { ADAPTER_STATE, type AdapterStateRow } from "../tables";

/** The statements of one schema, built once. */
interface Statements {
  get: string;
  lock: string;
  insert: string;
  put: BufferedUpdate<AdapterStateRow>;
  delete: string;
  increment: string;
}

const bySchema = new Map<string, Statements>();

/**
 * The rows of the keys given as one JSON array (`$2`), one primary-key lookup per key: `LIMIT 1`
 * keeps each lookup a subquery of its own, so the plan is a lookup per key however the planner
 * sized the table when it made the plan (a join, or `key = ANY(…)`, planned while the table was
 * empty stays a scan of the whole table). `lock` locks each row found, in the order of the keys.
 */
const lookup = (s: string, columns: string, lock = "") =>
  `FROM json_array_elements_text($2::json) AS k(key),
     LATERAL (SELECT ${columns} FROM ${s}.adapter_state a WHERE a.namespace = $1 AND a.key = k.key LIMIT 1${lock}) a`;

function statements(s: string): Statements {
  let sql = bySchema.get(s);
  if (sql) return sql;
  const [ns, key, value] = ADAPTER_STATE.columns.map((c) => `x."${c.alias}"`);
  const recordset = ADAPTER_STATE.columns.map((c) => `"${c.alias}" text`).join(", ");
  sql = {
    get: `SELECT a.key, a.value::text AS value ${lookup(s, "key, value")}`,
    lock: `SELECT a.key, a.value::text AS value ${lookup(s, "key, value", " FOR UPDATE")}`,
    // Inserted keys come back from the INSERT; existing ones from the statement's snapshot. A key
    // a concurrent transaction inserted (this one waited for it) is in neither: `get` reads it after.
    insert: `WITH x AS (SELECT k, v FROM json_to_recordset($2::json) AS x(k text, v text)),
      ins AS (
        INSERT INTO ${s}.adapter_state (namespace, key, value)
        SELECT $1, k, v::json FROM x ORDER BY k COLLATE "C"
        ON CONFLICT (namespace, key) DO NOTHING
        RETURNING key)
      SELECT key, NULL AS value, true AS inserted FROM ins
      UNION ALL
      SELECT a.key, a.value::text, false FROM x,
        LATERAL (SELECT key, value FROM ${s}.adapter_state a WHERE a.namespace = $1 AND a.key = x.k LIMIT 1) a`,
    put: {
      table: ADAPTER_STATE,
      sql: `INSERT INTO ${s}.adapter_state AS t (namespace, key, value)
        SELECT ${ns}, ${key}, ${value}::json FROM json_to_recordset($1::json) AS x(${recordset}) ORDER BY ${key} COLLATE "C"
        ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value`,
      key: (r) => `${r.namespace}\u0000${r.key}`,
      guarded: false,
      strict: false,
    },
    // planned with its keys each time (a delete cannot look rows up one by one as `get` does)
    delete: `${PLAN_EACH_TIME}DELETE FROM ${s}.adapter_state WHERE namespace = $1 AND key IN (SELECT json_array_elements_text($2::json))`,
    // a stored value that is not a counter (a JSON string of an integer) makes the sum NULL,
    // which the NOT NULL of `value` refuses: the call fails
    increment: `INSERT INTO ${s}.adapter_state AS a (namespace, key, value)
      SELECT $1, x.k, to_json(x.d) FROM json_to_recordset($2::json) AS x(k text, d text) ORDER BY x.k COLLATE "C"
      ON CONFLICT (namespace, key) DO UPDATE SET value = to_json((
        CASE WHEN json_typeof(a.value) = 'string' AND (a.value #>> '{}') ~ '^-?[0-9]+$' THEN (a.value #>> '{}')::numeric END
        + (EXCLUDED.value #>> '{}')::numeric)::text)
      RETURNING key, value #>> '{}' AS n`,
  };
  bySchema.set(s, sql);
  return sql;
}

/**
 * `AdapterStateTx` of one namespace on one transaction: one statement per call. `put` waits in
 * the transaction's buffer (an upsert per key, the last value winning) and leaves with its next
 * statement or its commit, so a transaction that reads, decides and writes pays no round trip
 * for its writes; every other call flushes the buffer first, so it sees (and orders after) them.
 */
export function adapterStateTx(tx: PgTxContext, namespace: string): AdapterStateTx {
  const sql = statements(tx.s);
  const keyParam = (keys: readonly string[]) => JSON.stringify(keys);
  const rangeQuery = (range: StateRange, head: string, params: unknown[]): { text: string; params: unknown[] } | null => {
    const { lower, upper, empty } = stateRangeBounds(range);
    if (empty) return null;
    let text = head;
    if (lower !== null) {
      params.push(lower);
      text += ` AND key >= $${params.length}`;
    }
    if (upper !== null) {
      params.push(upper);
      text += ` AND key < $${params.length}`;
    }
    return { text, params };
  };
  return {
    async get(keys, options) {
      const wanted = unique(checked(keys));
      if (!wanted.length) return new Map();
      // locks are taken in key order (the lookups run in the order of the keys)
      const { rows } = options?.lock
        ? await tx.run(sql.lock, [namespace, keyParam(wanted.sort(compareStateKeys))])
        : await tx.read(sql.get, [namespace, keyParam(wanted)]);
      return new Map(rows.map((r) => [r.key as string, JSON.parse(r.value as string) as Json]));
    },
    async insert(entries) {
      const given = new Map<string, string>();
      for (const [key, value] of entries) {
        assertStateKey(key);
        const text = jsonText(key, value);
        if (!given.has(key)) given.set(key, text);
      }
      const answers = new Map<string, { value: Json; inserted: boolean }>();
      if (!given.size) return answers;
      let rows: Row[] = (await tx.run(sql.insert, [namespace, JSON.stringify([...given].map(([k, v]) => ({ k, v })))])).rows;
      for (let round = 0; ; round++) {
        for (const r of rows) {
          const key = r.key as string;
          answers.set(
            key,
            r.inserted ? { value: JSON.parse(given.get(key)!) as Json, inserted: true } : { value: JSON.parse(r.value as string) as Json, inserted: false },
          );
        }
        const missing = [...given.keys()].filter((k) => !answers.has(k));
        if (!missing.length) return new Map([...given.keys()].map((k) => [k, answers.get(k)!]));
        if (round >= 3) throw new Error(`adapter state ${namespace}: keys neither inserted nor found: ${missing.join(", ")}`);
        // committed by a concurrent transaction after this statement's snapshot: visible now
        rows = (await tx.run(sql.get, [namespace, keyParam(missing)])).rows;
        const found = new Set(rows.map((r) => r.key as string));
        const gone = missing.filter((k) => !found.has(k));
        if (gone.length) {
          // deleted again meanwhile: try those once more
          const again = await tx.run(sql.insert, [namespace, JSON.stringify(gone.map((k) => ({ k, v: given.get(k)! })))]);
          rows = [...rows, ...again.rows];
        }
      }
    },
    async put(entries) {
      const rows: AdapterStateRow[] = [];
      for (const [key, value] of entries) {
        assertStateKey(key);
        rows.push({ namespace, key, value: jsonText(key, value) });
      }
      await tx.bufferUpdates(sql.put, rows);
    },
    async delete(keys) {
      const wanted = unique(checked(keys));
      if (!wanted.length) return 0;
      return (await tx.run(sql.delete, [namespace, keyParam(wanted)])).rowCount;
    },
    async deleteRange(range) {
      const q = rangeQuery(range, `DELETE FROM ${tx.s}.adapter_state WHERE namespace = $1`, [namespace]);
      return q ? (await tx.run(q.text, q.params)).rowCount : 0;
    },
    async list(range, options = {}) {
      const q = rangeQuery(range, `SELECT key, value::text AS value FROM ${tx.s}.adapter_state WHERE namespace = $1`, [namespace]);
      if (!q) return [];
      let text = `${q.text} ORDER BY key${options.reverse ? " DESC" : ""}`;
      if (options.limit !== undefined) {
        q.params.push(Math.max(0, Math.floor(options.limit)));
        text += ` LIMIT $${q.params.length}`;
      }
      const { rows } = await tx.read(text, q.params);
      return rows.map((r): StateEntry => ({ key: r.key as string, value: JSON.parse(r.value as string) as Json }));
    },
    async increment(deltas) {
      const sums = new Map<string, bigint>();
      for (const [key, delta] of deltas) {
        assertStateKey(key);
        if (typeof delta !== "bigint") throw new TypeError(`increment of ${key}: the delta is not a bigint`);
        sums.set(key, (sums.get(key) ?? 0n) + delta);
      }
      if (!sums.size) return new Map();
      const { rows } = await tx.run(sql.increment, [namespace, JSON.stringify([...sums].map(([k, d]) => ({ k, d: d.toString() })))]);
      const values = new Map(rows.map((r) => [r.key as string, BigInt(r.n as string)]));
      return new Map([...sums.keys()].map((k) => [k, values.get(k)!]));
    },
  };
}

function checked(keys: Iterable<string>): string[] {
  const out = [...keys];
  for (const key of out) assertStateKey(key);
  return out;
}

const unique = (keys: string[]) => (keys.length > 1 ? [...new Set(keys)] : keys);

function jsonText(key: string, value: Json): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`the value of ${key} is not JSON`);
  return text;
}

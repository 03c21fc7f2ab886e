import { keptSql } from "./sql-texts";
import type {
  AccountRecord,
  ApiKeyRecord,
  BalanceRecord,
  DeliveryLogRecord,
  DepositAddressRecord,
  DueWorkRecord,
  EventRecord,
  IdempotencyRecord,
  LedgerEntryRecord,
  ReservationRecord,
  ResourceRecord,
} from "../../src/ports/public";

/**
 * How a record field is kept in a column:
 * - `text`, `boolean`, `text[]`: as they are;
 * - `numeric`: money, a `bigint` in the record and exact decimal text on the wire;
 * - `bigint`, `integer`: epoch milliseconds and counts, a `number` in the record;
 * - `json`, `jsonb`: JSON values, kept as written (`json`) or queryable (`jsonb`).
 */
export type ColumnType = "text" | "boolean" | "text[]" | "numeric" | "bigint" | "integer" | "json" | "jsonb";

export interface Column {
  /** The record's field. */
  field: string;
  /** The table's column. */
  name: string;
  type: ColumnType;
  /** Its key in the JSON rows of a buffered insert (short: the whole batch is one JSON text). */
  alias: string;
}

/**
 * One table described once: its columns in order, and from that everything that would otherwise
 * be written four times (the insert with its `json_to_recordset` aliases, the JSON row of a
 * record, and the record of a row).
 */
export interface Table<R> {
  readonly name: string;
  readonly columns: readonly Column[];
  /**
   * `INSERT … SELECT … FROM json_to_recordset($1::json)` of this table, for `{s}` the schema;
   * its one parameter is `jsonRows(records)`.
   */
  insertSql(schema: string): string;
  /** The records as the insert's (or a `TableUpdate`'s) one JSON parameter. */
  jsonRows(records: readonly R[]): string;
  /**
   * `UPDATE … SET <set> FROM json_to_recordset($1::json)` of this table: each JSON row (from
   * `jsonRows`) updates the row with the same `keys`, where `guard` (SQL over `t.<column>` and
   * `x.<alias>`, given by `col`) holds. `single`: the statement for one JSON row (see
   * `boundedRows`), which the planner knows to be one.
   */
  updateSql(
    schema: string,
    keys: readonly (keyof R & string)[],
    set: readonly (keyof R & string)[],
    guard?: (col: (field: keyof R & string) => { t: string; x: string }) => string,
    options?: { single?: boolean },
  ): string;
  /** A row read with `SELECT *` (or the table's columns) as a record. */
  fromRow(row: Record<string, unknown>): R;
  /** A row read as an array of `columns`' values, in their order (`rowMode: "array"`), as a record. */
  fromValues(values: readonly unknown[]): R;
}

/**
 * A set-returning source (`json_to_recordset(…) AS x(…)`, `unnest(…) AS p(…)`) as one the planner
 * knows holds at most `limit` rows (a subquery with that LIMIT): it estimates such a function at
 * 100 rows, and against a table of a few thousand rows 100 rows to match make a sequential scan
 * and a hash join look cheaper than 100 lookups by key. A prepared statement keeps that plan
 * while the table grows (until an ANALYZE replans it), so each update of one row by its key read
 * the whole table. `limit` must be the source's row count, or more.
 */
export function boundedRows(source: string, alias: string, limit = 1): string {
  return `(SELECT * FROM ${source} LIMIT ${limit}) AS ${alias}`;
}

/** Rows a use case writes at most (`fewRows`). */
const FEW_ROWS = 8;

/** A source of `count` rows named `alias` (`source` ends `AS <alias>(…)`): bounded when few (up to `FEW_ROWS`, a use case's), as given otherwise. */
export function fewRows(source: string, alias: string, count: number): string {
  return count <= FEW_ROWS ? boundedRows(source, alias, count) : source;
}

/** What `fewRows` makes of `count`: the count when few, else one word for every larger count (a key of the text it makes). */
export function fewRowsKey(count: number): number | "many" {
  return count <= FEW_ROWS ? count : "many";
}

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Describes a table: `columns` maps each record field to its column type, or to `[column, type]`
 * when the column's name is not the field's in snake case. `onConflict` is appended to inserts.
 * `nullAsEmpty`: text fields whose null is kept as `''` (a key column, which is never null).
 */
export function table<R>(
  name: string,
  columns: { [K in keyof R]-?: ColumnType | readonly [string, ColumnType] },
  options: { onConflict?: string; nullAsEmpty?: readonly (keyof R & string)[] } = {},
): Table<R> {
  const empty = new Set<string>(options.nullAsEmpty ?? []);
  const cols: Column[] = Object.entries(columns as Record<string, ColumnType | readonly [string, ColumnType]>).map(([field, spec], i) => {
    const [column, type] = typeof spec === "string" ? [snake(field), spec] : spec;
    return { field, name: column, type, alias: `${i.toString(36)}_` };
  });
  const recordset = cols.map((c) => `"${c.alias}" ${c.type === "jsonb" ? "json" : c.type}`).join(", ");
  const select = cols.map((c) => (c.type === "jsonb" ? `"${c.alias}"::jsonb` : `"${c.alias}"`)).join(", ");
  const conflict = options.onConflict ? ` ON CONFLICT ${options.onConflict}` : "";
  const insertKey = `insert ${name}`;
  /** A column's value as its record field holds it. */
  const cell = (c: Column, value: unknown): unknown =>
    value === null || value === undefined || (value === "" && empty.has(c.field))
      ? c.type === "text[]"
        ? []
        : null
      : c.type === "numeric"
        ? BigInt(value as string)
        : c.type === "bigint" || c.type === "integer"
          ? Number(value)
          : value;
  const col = (field: string) => {
    const c = cols.find((c) => c.field === field);
    if (!c) throw new TypeError(`${name} has no field ${field}`);
    return { t: `t.${c.name}`, x: c.type === "jsonb" ? `x."${c.alias}"::jsonb` : `x."${c.alias}"` };
  };
  return {
    name,
    columns: cols,
    updateSql(schema, keys, set, guard, options) {
      const assignments = set.map((f) => `${cols.find((c) => c.field === f)!.name} = ${col(f).x}`).join(", ");
      const where = [...keys.map((f) => `${col(f).t} = ${col(f).x}`), ...(guard ? [guard(col)] : [])].join(" AND ");
      const rows = `json_to_recordset($1::json) AS x(${recordset})`;
      return `UPDATE ${schema}.${name} t SET ${assignments} FROM ${options?.single ? boundedRows(rows, "x") : rows} WHERE ${where}`;
    },
    insertSql: (schema) =>
      keptSql(
        schema,
        insertKey,
        () =>
          `INSERT INTO ${schema}.${name} (${cols.map((c) => c.name).join(", ")}) ` +
          `SELECT ${select} FROM json_to_recordset($1::json) AS x(${recordset})${conflict}`,
      ),
    jsonRows(records) {
      return JSON.stringify(
        records.map((record) => {
          const out: Record<string, unknown> = {};
          for (const c of cols) {
            const value = (record as Record<string, unknown>)[c.field];
            out[c.alias] = value === undefined || value === null ? (empty.has(c.field) ? "" : null) : c.type === "numeric" ? String(value) : value;
          }
          return out;
        }),
      );
    },
    fromRow(row) {
      const out: Record<string, unknown> = {};
      for (const c of cols) out[c.field] = cell(c, row[c.name]);
      return out as R;
    },
    fromValues(values) {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < cols.length; i++) out[cols[i]!.field] = cell(cols[i]!, values[i]);
      return out as R;
    },
  };
}

export const ACCOUNTS = table<AccountRecord>("accounts", {
  id: "text",
  name: "text",
  livemode: "boolean",
  settings: "jsonb",
  created: "bigint",
});

export const API_KEYS = table<ApiKeyRecord>(
  "api_keys",
  {
    hash: "text",
    accountId: "text",
    id: "text",
    name: "text",
    livemode: "boolean",
    scopes: "text[]",
    redacted: "text",
    created: "bigint",
    expiresAt: "bigint",
    revokedAt: "bigint",
    lastUsedAt: "bigint",
  },
  { onConflict: "(hash) DO NOTHING" },
);

/**
 * The order every transaction locks balance rows in (`b` the balances table): a locking read's
 * (`lockBalances`) and an optimistic flush's check of the rows it read unlocked alike, so two
 * transactions on one (account, asset) never wait for each other's rows crosswise (a deadlock).
 */
export const BALANCE_LOCK_ORDER = "ORDER BY b.account_id, b.asset, b.chain, b.book";

export const BALANCES = table<BalanceRecord>("balances", {
  accountId: "text",
  asset: "text",
  chain: "text",
  book: "text",
  amount: "numeric",
});

export const LEDGER_ENTRIES = table<LedgerEntryRecord>("ledger_entries", {
  accountId: "text",
  id: "text",
  postingId: "text",
  line: "integer",
  asset: "text",
  chain: "text",
  book: "text",
  amount: "numeric",
  resource: "text",
  created: "bigint",
});

export const RESERVATIONS = table<ReservationRecord>("reservations", {
  accountId: "text",
  id: "text",
  asset: "text",
  chain: "text",
  amount: "numeric",
  remaining: "numeric",
  status: "text",
  resource: "text",
  created: "bigint",
  resolvedAt: "bigint",
});

export const RESOURCES = table<ResourceRecord>("resources", {
  accountId: "text",
  kind: "text",
  id: "text",
  created: "bigint",
  status: "text",
  reference: "text",
  data: "jsonb",
  version: "integer",
  updated: "bigint",
});

export const EVENTS = table<EventRecord>("events", {
  accountId: "text",
  id: "text",
  type: "text",
  created: "bigint",
  livemode: "boolean",
  data: "json",
  request: "json",
});

export const IDEMPOTENCY_KEYS = table<IdempotencyRecord>("idempotency_keys", {
  accountId: "text",
  key: "text",
  fingerprint: "text",
  lockedAt: "bigint",
  response: "json",
  created: "bigint",
  expiresAt: "bigint",
  owner: "text",
});

/** A response saved over a key by `IdempotencyStore.replaceAtCommit`: the new row, and how the row must stand. */
export interface IdempotencySave extends IdempotencyRecord {
  expectedLockedAt: number | null;
  expectedResponded: boolean;
}

/** `idempotency_keys` as the buffered update of `replaceAtCommit` reads its JSON rows. */
export const IDEMPOTENCY_SAVES = table<IdempotencySave>("idempotency_keys", {
  accountId: "text",
  key: "text",
  fingerprint: "text",
  lockedAt: "bigint",
  response: "json",
  created: "bigint",
  expiresAt: "bigint",
  owner: "text",
  expectedLockedAt: "bigint",
  expectedResponded: "boolean",
});

export const DUE_WORK = table<DueWorkRecord>(
  "due_work",
  {
    id: "text",
    kind: "text",
    accountId: "text",
    livemode: "boolean",
    payload: "jsonb",
    runAt: "bigint",
    leaseOwner: "text",
    leaseUntil: "bigint",
    attempts: "integer",
    lastError: "text",
    status: "text",
    dedupeKey: "text",
    group: ["group_key", "text"],
    request: "json",
    created: "bigint",
  },
  // the engine's own work (no account) is kept under the account '' (migration 20)
  { onConflict: "(account_id, dedupe_key) DO NOTHING", nullAsEmpty: ["accountId"] },
);

export const WEBHOOK_DELIVERIES = table<DeliveryLogRecord>("webhook_deliveries", {
  accountId: "text",
  id: "text",
  endpointId: "text",
  eventId: "text",
  eventType: "text",
  attempt: "integer",
  trigger: "text",
  status: "text",
  responseStatus: "integer",
  latencyMs: "integer",
  error: "text",
  created: "bigint",
  nextAttemptAt: "bigint",
});

export const DEPOSIT_ADDRESSES = table<DepositAddressRecord>("deposit_addresses", {
  chain: "text",
  address: "text",
  accountId: "text",
  resource: "text",
  created: "bigint",
});

/** A record of the adapter-state seam as a buffered upsert carries it: the value as JSON text. */
export interface AdapterStateRow {
  namespace: string;
  key: string;
  /** `JSON.stringify` of the value (cast to `json` by the statement, so a JSON `null` stays a value). */
  value: string;
}

/** The adapter-state seam's one table (migration 13): its rows as a buffered upsert sends them. */
export const ADAPTER_STATE = table<AdapterStateRow>("adapter_state", {
  namespace: "text",
  key: "text",
  value: "text",
});

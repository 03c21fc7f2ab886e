import type { Table } from "./tables";

/**
 * A write of rows by key that may wait in a transaction's buffer (`bufferUpdates`): an update of
 * rows the transaction locked, or an upsert (`INSERT … ON CONFLICT DO UPDATE`, not strict).
 */
export interface BufferedUpdate<R> {
  readonly table: Table<R>;
  /** `table.updateSql(…)` for the transaction's schema (or an upsert taking `table.jsonRows` as `$1`). */
  readonly sql: string;
  /** The statement for one record, when it differs (`Table.updateSql`'s `single`): flushes of one record use it. */
  readonly single?: string;
  /** The row a record updates. */
  key(record: R): string;
  /**
   * Whether the statement checks the row as it was (a version guard): a second update of the
   * same row then waits for the first to be written. Without one, the later record replaces the
   * earlier in the buffer.
   */
  readonly guarded: boolean;
  /** Whether every record must hit its row (the flush fails otherwise); else a miss changes nothing. */
  readonly strict: boolean;
  /** The error a strict update's miss fails the flush with, given its records (default: a programmer error). */
  readonly mismatch?: (records: R[]) => Error;
}

/**
 * The `BufferedUpdate` that sets `set` on the `table` row with the record's `keys`, where `guard`
 * holds (see `Table.updateSql`; a guarded update checks the row as it was), built once per schema.
 */
export function bufferedUpdate<R>(
  table: Table<R>,
  keys: readonly (keyof R & string)[],
  set: readonly (keyof R & string)[],
  guard?: Parameters<Table<R>["updateSql"]>[3],
  options: { strict?: boolean; mismatch?: (records: R[]) => Error } = {},
): (schema: string) => BufferedUpdate<R> {
  const bySchema = new Map<string, BufferedUpdate<R>>();
  return (schema) => {
    let update = bySchema.get(schema);
    if (!update) {
      update = {
        table,
        sql: table.updateSql(schema, keys, set, guard),
        single: table.updateSql(schema, keys, set, guard, { single: true }),
        key: (r) => keys.map((k) => String(r[k])).join("\u0000"),
        guarded: guard !== undefined,
        strict: options.strict ?? true,
        ...(options.mismatch ? { mismatch: options.mismatch } : {}),
      };
      bySchema.set(schema, update);
    }
    return update;
  };
}

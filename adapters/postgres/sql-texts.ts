/** SQL texts kept (at most `MAX_KEPT`; a schema per test makes texts many): beyond, they are built each time. */
const MAX_KEPT = 2_000;

/** SQL texts by schema, then by what makes them. */
const kept = new Map<string, Map<string, string>>();
let count = 0;

/**
 * The SQL text `build` makes for `what` in `schema` (or another namespace: a flush's shapes),
 * made once: a statement or a flush's part whose text depends only on those. One string each time, so a map keyed by it (a flush's shape,
 * the driver's prepared names) finds it by the hash the string keeps; and a transaction's schema is
 * one string throughout, so this lookup costs no hashing of its own either.
 */
export function keptSql(schema: string, what: string, build: () => string): string {
  let ofSchema = kept.get(schema);
  let sql = ofSchema?.get(what);
  if (sql === undefined) {
    sql = build();
    if (count < MAX_KEPT) {
      if (!ofSchema) kept.set(schema, (ofSchema = new Map()));
      ofSchema.set(what, sql);
      count++;
    }
  }
  return sql;
}

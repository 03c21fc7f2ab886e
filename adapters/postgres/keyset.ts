import type { KeysetQuery } from "../../src/ports/public";

/**
 * The keyset page statement of `KeysetQuery` over `table` (newest first, or oldest first with
 * `order: "asc"`; the row comparison uses the `(…, created DESC, id DESC)` index, read either way). `filters` are exact matches on further columns;
 * `statusColumn` is what `query.status` matches; with `reference`, `search` also matches a
 * prefix of the `reference` column; with `metadata`, `query.metadata` matches the `data` column's
 * `metadata` (a table without it matches nothing). `eachStatus`: every value the status column
 * can hold, for a table whose only index in the page's order holds the status after the filters
 * (`(…, status, created DESC, id DESC)`): a page with no status filter then reads one range of
 * that index per status, each stopped at the page's size, and merges them (none given: one read).
 */
export function keysetSql(
  table: string,
  q: KeysetQuery,
  opts: { filters?: Record<string, unknown>; statusColumn?: string; reference?: boolean; metadata?: boolean; eachStatus?: readonly string[] },
): { text: string; params: unknown[] } {
  const params: unknown[] = [q.accountId];
  const where = ["account_id = $1"];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  for (const [column, value] of Object.entries(opts.filters ?? {})) where.push(`${column} = ${p(value)}`);
  const status = opts.statusColumn ?? "status";
  if (q.status !== undefined) where.push(`${status} = ${p(q.status)}`);
  if (q.createdGte !== undefined) where.push(`created >= ${p(q.createdGte)}`);
  if (q.createdLt !== undefined) where.push(`created < ${p(q.createdLt)}`);
  if (q.search !== undefined) {
    where.push(opts.reference ? `(id = ${p(q.search)} OR reference LIKE ${p(likePrefix(q.search))} ESCAPE '\\')` : `id = ${p(q.search)}`);
  }
  if (q.metadata !== undefined) {
    // the predicate of the partial index resources_metadata (migration 16), then containment it serves
    if (!opts.metadata) where.push("false");
    else where.push(`data->'metadata' <> '{}'::jsonb AND data->'metadata' @> ${p(JSON.stringify({ [q.metadata.key]: q.metadata.value }))}::jsonb`);
  }
  const [cmp, dir] = q.order === "asc" ? [">", "ASC"] : ["<", "DESC"];
  if (q.after !== undefined) where.push(`(created, id) ${cmp} (${p(q.after.created)}, ${p(q.after.id)})`);
  const order = `ORDER BY created ${dir}, id ${dir} LIMIT ${p(q.limit)}`;
  const page = (conditions: string[]) => `SELECT * FROM ${table} WHERE ${conditions.join(" AND ")} ${order}`;
  if (q.status !== undefined || !opts.eachStatus?.length) return { text: page(where), params };
  // the values are the code's own (a column's CHECK), written into the text so each range is planned on the index
  const ranges = opts.eachStatus.map((value) => {
    if (!/^[a-z_]+$/.test(value)) throw new Error(`not a status value: ${value}`);
    return `(${page([...where, `${status} = '${value}'`])})`;
  });
  return { text: `SELECT * FROM (${ranges.join(" UNION ALL ")}) AS page ${order}`, params };
}

/** `text` as a LIKE pattern matching what starts with it (wildcards in it taken literally). */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

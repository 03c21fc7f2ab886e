import type { KeysetQuery } from "../../src/ports/public";

/**
 * The keyset page statement of `KeysetQuery` over `table` (newest first, or oldest first with
 * `order: "asc"`; the row comparison uses the `(…, created DESC, id DESC)` index, read either way). `filters` are exact matches on further columns;
 * `statusColumn` is what `query.status` matches; with `reference`, `search` also matches a
 * prefix of the `reference` column; with `metadata`, `query.metadata` matches the `data` column's
 * `metadata` (a table without it matches nothing).
 */
export function keysetSql(
  table: string,
  q: KeysetQuery,
  opts: { filters?: Record<string, unknown>; statusColumn?: string; reference?: boolean; metadata?: boolean },
): { text: string; params: unknown[] } {
  const params: unknown[] = [q.accountId];
  const where = ["account_id = $1"];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  for (const [column, value] of Object.entries(opts.filters ?? {})) where.push(`${column} = ${p(value)}`);
  if (q.status !== undefined) where.push(`${opts.statusColumn ?? "status"} = ${p(q.status)}`);
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
  return {
    text: `SELECT * FROM ${table} WHERE ${where.join(" AND ")} ORDER BY created ${dir}, id ${dir} LIMIT ${p(q.limit)}`,
    params,
  };
}

/** `text` as a LIKE pattern matching what starts with it (wildcards in it taken literally). */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

import { RELAXED_COMMIT_ROW } from "./driver";
import { keptSql } from "./sql-texts";

/** A part of a flush's statement (`PgTx.send`): its SQL on `$1`, its one parameter, and the rows it must hit. */
export interface FlushPart {
  sql: string;
  param: string;
  /** A part that only locks (no RETURNING of its own). */
  select?: boolean;
  /** Rows the part must touch, and the error when it does not. */
  expect?: { rows: number; error: () => Error };
}

/** The label a flush's failed expectation carries: the statement fails casting `<EXPECT><part>` to an integer. */
export const EXPECT = "payrail-expect:";

/** The part a flush's error names as the one whose count was off (`EXPECT`), if any. */
export function missedPart(parts: readonly FlushPart[], e: unknown): FlushPart | undefined {
  const missed = new RegExp(`"${EXPECT}(\\d+)"`).exec(e instanceof Error ? e.message : "");
  return missed ? parts[Number(missed[1])] : undefined;
}

/**
 * A flush's one statement: each part a CTE with its parameter renumbered after the ones before,
 * then the parts' expected counts as parameters (a count that is off fails the statement: the
 * cast of the part's label is not a number). `versions`: the statement also returns its
 * transaction's id (the version of the balance rows it changes); `durable` false: it commits
 * without waiting for the disk when it runs alone.
 *
 * The text depends only on the parts' shape (their SQL, which select and which expect), so it is
 * kept by shape (`flushText`): a flush of a shape seen before builds no text, and the driver finds
 * the text's prepared name by the same string, whose hash the string keeps. Parts whose SQL is
 * kept (`keptSql`) are found by their ids the same way.
 */
export function flushStatement(parts: readonly FlushPart[], versions: boolean, durable: boolean): { text: string; params: unknown[] } {
  const params: unknown[] = parts.map((p) => p.param);
  for (const part of parts) if (part.expect) params.push(part.expect.rows);
  return { text: flushText(parts, versions, durable), params };
}

/** Part SQL texts given an id (a schema per test makes texts many); beyond, texts are built each time. */
const MAX_PART_TEXTS = 2_000;
const partIds = new Map<string, number>();
/** The namespace of `keptSql` that flush texts are kept in, by shape (no schema's: a part's SQL names its own). */
const SHAPES = "flush shapes";

/** `buildFlushText`'s text, kept by the parts' shape. */
export function flushText(parts: readonly FlushPart[], versions: boolean, durable: boolean): string {
  let shape = `${versions ? "v" : ""}${durable ? "" : "r"}`;
  for (const part of parts) {
    let id = partIds.get(part.sql);
    if (id === undefined) {
      if (partIds.size >= MAX_PART_TEXTS) return buildFlushText(parts, versions, durable);
      id = partIds.size;
      partIds.set(part.sql, id);
    }
    shape += `,${id}${part.select ? "s" : ""}${part.expect ? "e" : ""}`;
  }
  return keptSql(SHAPES, shape, () => buildFlushText(parts, versions, durable));
}

/** The text of `flushStatement`, built from its parts. */
export function buildFlushText(parts: readonly FlushPart[], versions: boolean, durable: boolean): string {
  const ctes = parts.map((part, i) => `w${i} AS (${part.sql.replace("$1", () => `$${i + 1}`)}${part.select ? "" : " RETURNING 1"})`);
  let n = parts.length;
  const checks = parts.flatMap((part, i) =>
    part.expect ? [`CAST(CASE WHEN (SELECT count(*) FROM w${i}) = $${++n}::bigint THEN '0' ELSE '${EXPECT}${i}' END AS integer)`] : [],
  );
  // balance rows it changes get this transaction's id as their version (`TxBalances.flushed`)
  if (versions) checks.push("pg_current_xact_id()::xid::text AS xid");
  // a flush that runs alone carries its transaction's commit mode with it
  return `WITH ${ctes.join(",\n")} SELECT ${checks.length ? checks.join(", ") : "1"}${durable ? "" : ` FROM ${RELAXED_COMMIT_ROW}`}`;
}

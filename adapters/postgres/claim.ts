import type { ClaimRequest, DueWorkRecord } from "../../src/ports/public";
import type { PostgresDriver } from "./driver";
import type { Row } from "./pg-tx";
import { ownerAliveSql } from "./stores/owners";
import { DUE_WORK } from "./tables";

/**
 * Claims due work for the adapter's `claimDueWork` (see the port), in its own short transaction
 * or statement: `FOR UPDATE SKIP LOCKED` so concurrent claimers never take one item twice.
 */
export async function claimDueWork(driver: PostgresDriver, s: string, schema: string, request: ClaimRequest): Promise<DueWorkRecord[]> {
  const params: unknown[] = [request.now, request.limit, request.owner, request.now + request.leaseMs];
  const kinds = kindFilter(request, params);
  if (request.groupLimit !== undefined) return claimGrouped(driver, s, schema, request, request.groupLimit);
  const { rows } = await driver.query<Row>(
    `WITH due AS (
       SELECT id FROM ${s}.due_work
       WHERE status = 'ready' AND run_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)${kinds}
         AND ${ownerAliveSql(s, "$3", "$1")}
       ORDER BY run_at, id
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE ${s}.due_work w
     SET lease_owner = $3, lease_until = $4, attempts = w.attempts + 1
     FROM due WHERE w.id = due.id
     RETURNING w.*`,
    params,
  );
  return rows.map(DUE_WORK.fromRow).sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
}

/**
 * A claim that keeps each group under `groupLimit` leases, strictly, with concurrent claimers:
 * (1) lock due candidates, skipping groups already at their limit and rows others hold;
 * (2) take each candidate group's advisory lock for the rest of this short transaction, so one
 * claimer at a time decides for a group (a group whose lock is busy waits for the next claim);
 * (3) count the group's live leases after that lock, which sees every claim committed before
 * it; (4) lease what fits.
 */
function claimGrouped(driver: PostgresDriver, s: string, schema: string, request: ClaimRequest, groupLimit: number): Promise<DueWorkRecord[]> {
  return driver.transaction(async (c) => {
    const alive = await c.query<Row>(`SELECT 1 AS alive WHERE ${ownerAliveSql(s, "$1", "$2")}`, [request.owner, request.now]);
    if (!alive.rows.length) return [];
    const params: unknown[] = [request.now, request.limit * 2, groupLimit];
    const kinds = kindFilter(request, params);
    const candidates = (
      await c.query<Row>(
        `SELECT id, group_key FROM ${s}.due_work
         WHERE status = 'ready' AND run_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)${kinds}
           AND (group_key IS NULL OR group_key NOT IN (
             SELECT group_key FROM ${s}.due_work
             WHERE group_key IS NOT NULL AND lease_owner IS NOT NULL AND lease_until > $1
             GROUP BY group_key HAVING count(*) >= $3))
         ORDER BY run_at, id
         LIMIT $2
         FOR UPDATE SKIP LOCKED`,
        params,
      )
    ).rows;
    const groups = [...new Set(candidates.map((r) => r.group_key as string | null).filter((g): g is string => g !== null))];
    const room = new Map<string, number>();
    if (groups.length) {
      const locked = await c.query<Row>(`SELECT g FROM unnest($1::text[]) AS g WHERE pg_try_advisory_xact_lock(hashtextextended($2 || g, 0))`, [
        groups,
        `payrail.due_work.group:${schema}:`,
      ]);
      for (const r of locked.rows) room.set(r.g, groupLimit);
      const leased = await c.query<Row>(
        `SELECT group_key, count(*) AS n FROM ${s}.due_work
         WHERE group_key = ANY($1::text[]) AND lease_owner IS NOT NULL AND lease_until > $2
         GROUP BY group_key`,
        [[...room.keys()], request.now],
      );
      for (const r of leased.rows) room.set(r.group_key, groupLimit - Number(r.n));
    }
    const ids: string[] = [];
    for (const r of candidates) {
      if (ids.length >= request.limit) break;
      const group = r.group_key as string | null;
      if (group !== null) {
        const left = room.get(group) ?? 0;
        if (left <= 0) continue;
        room.set(group, left - 1);
      }
      ids.push(r.id);
    }
    if (!ids.length) return [];
    const { rows } = await c.query<Row>(
      `UPDATE ${s}.due_work SET lease_owner = $2, lease_until = $3, attempts = attempts + 1
       WHERE id = ANY($1::text[]) RETURNING *`,
      [ids, request.owner, request.now + request.leaseMs],
    );
    return rows.map(DUE_WORK.fromRow).sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
  });
}

/** The claim's kind filters as SQL appended to a WHERE clause, with their parameters pushed. */
function kindFilter(request: ClaimRequest, params: unknown[]): string {
  let sql = "";
  if (request.onlyKinds !== undefined) {
    params.push(request.onlyKinds);
    sql += ` AND kind = ANY($${params.length}::text[])`;
  }
  if (request.exceptKinds !== undefined && request.exceptKinds.length) {
    params.push(request.exceptKinds);
    sql += ` AND NOT (kind = ANY($${params.length}::text[]))`;
  }
  return sql;
}

import { roomOf, type ClaimRequest, type DueWorkRecord } from "../../src/ports/public";
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
  if (request.groupLimit !== undefined || request.accountRoom !== undefined || request.exceptGroups?.length) return claimLimited(driver, s, schema, request);
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

/** Rounds of candidates one limited claim reads at most (each round shuts out an account or group more). */
const MAX_ROUNDS = 32;

/**
 * A claim that keeps each group under `groupLimit` leases, strictly, with concurrent claimers,
 * each account within its `accountRoom`, and no item of `exceptGroups`: (1) lock due candidates, skipping groups already at
 * their limit, accounts and groups this claim has filled, and rows others hold; (2) take each new
 * candidate group's advisory lock for the rest of this short transaction, so one claimer at a
 * time decides for a group (a group whose lock is busy waits for the next claim); (3) count the
 * group's live leases after that lock, which sees every claim committed before it; (4) take what
 * fits; when candidates were passed over for a full account or group and the claim is not full,
 * read the next candidates without them, so a backlog of one account never hides another's.
 */
function claimLimited(driver: PostgresDriver, s: string, schema: string, request: ClaimRequest): Promise<DueWorkRecord[]> {
  const { groupLimit, accountRoom } = request;
  return driver.transaction(async (c) => {
    const alive = await c.query<Row>(`SELECT 1 AS alive WHERE ${ownerAliveSql(s, "$1", "$2")}`, [request.owner, request.now]);
    if (!alive.rows.length) return [];
    const ids: string[] = [];
    const groupRoom = new Map<string, number>();
    const taken = new Map<string, number>();
    const fullAccounts = new Set(Object.entries(accountRoom?.room ?? {}).flatMap(([account, n]) => (n <= 0 ? [account] : [])));
    const fullGroups = new Set<string>(request.exceptGroups ?? []);
    for (let round = 0; round < MAX_ROUNDS && ids.length < request.limit; round++) {
      const want = (request.limit - ids.length) * 2;
      const params: unknown[] = [request.now, want, ids, [...fullAccounts], [...fullGroups], groupLimit ?? null];
      const kinds = kindFilter(request, params);
      const candidates = (
        await c.query<Row>(
          `SELECT id, group_key, account_id FROM ${s}.due_work
           WHERE status = 'ready' AND run_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)${kinds}
             AND NOT (id = ANY($3::text[]))
             AND (account_id = '' OR NOT (account_id = ANY($4::text[])))
             AND (group_key IS NULL OR NOT (group_key = ANY($5::text[])))
             AND ($6::int IS NULL OR group_key IS NULL OR group_key NOT IN (
               SELECT group_key FROM ${s}.due_work
               WHERE group_key IS NOT NULL AND lease_owner IS NOT NULL AND lease_until > $1
               GROUP BY group_key HAVING count(*) >= $6))
           ORDER BY run_at, id
           LIMIT $2
           FOR UPDATE SKIP LOCKED`,
          params,
        )
      ).rows;
      if (groupLimit !== undefined) await decideGroups(c, s, schema, request.now, groupLimit, candidates, groupRoom);
      for (const r of candidates) {
        if (ids.length >= request.limit) break;
        const account = (r.account_id as string) || null; // '': the engine's own work (migration 20), in no account's room
        const group = r.group_key as string | null;
        if (account !== null && accountRoom && (fullAccounts.has(account) || (taken.get(account) ?? 0) >= roomOf(accountRoom, account))) {
          fullAccounts.add(account);
          continue;
        }
        if (groupLimit !== undefined && group !== null) {
          const left = groupRoom.get(group) ?? 0;
          if (left <= 0) {
            fullGroups.add(group);
            continue;
          }
          groupRoom.set(group, left - 1);
        }
        ids.push(r.id);
        if (account !== null && accountRoom) {
          const n = (taken.get(account) ?? 0) + 1;
          taken.set(account, n);
          if (n >= roomOf(accountRoom, account)) fullAccounts.add(account);
        }
      }
      if (candidates.length < want) break;
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

/**
 * Sets the room of each candidate group not decided yet in this claim: its limit less its live
 * leases once its advisory lock is ours, none when another claimer holds that lock.
 */
async function decideGroups(
  c: { query: PostgresDriver["query"] },
  s: string,
  schema: string,
  now: number,
  groupLimit: number,
  candidates: readonly Row[],
  groupRoom: Map<string, number>,
): Promise<void> {
  const groups = [...new Set(candidates.map((r) => r.group_key as string | null).filter((g): g is string => g !== null && !groupRoom.has(g)))];
  if (!groups.length) return;
  for (const g of groups) groupRoom.set(g, 0);
  const locked = await c.query<Row>(`SELECT g FROM unnest($1::text[]) AS g WHERE pg_try_advisory_xact_lock(hashtextextended($2 || g, 0))`, [
    groups,
    `payrail.due_work.group:${schema}:`,
  ]);
  const mine = locked.rows.map((r) => r.g as string);
  for (const g of mine) groupRoom.set(g, groupLimit);
  if (!mine.length) return;
  const leased = await c.query<Row>(
    `SELECT group_key, count(*) AS n FROM ${s}.due_work
     WHERE group_key = ANY($1::text[]) AND lease_owner IS NOT NULL AND lease_until > $2
     GROUP BY group_key`,
    [mine, now],
  );
  for (const r of leased.rows) groupRoom.set(r.group_key, groupLimit - Number(r.n));
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

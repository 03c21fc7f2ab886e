import type { WorkStore } from "../../../src/ports/public";
import type { PgTxContext } from "../pg-tx";
import { DUE_WORK } from "../tables";
import { ownerAliveSql } from "./owners";

export function workStore(tx: PgTxContext): WorkStore {
  const s = tx.s;
  return {
    async enqueue(items) {
      tx.buffer(DUE_WORK, items);
    },
    async complete(id, owner) {
      return (await tx.run(`DELETE FROM ${s}.due_work WHERE id = $1 AND lease_owner = $2`, [id, owner])).rowCount === 1;
    },
    async release(id, owner, next) {
      const r = await tx.run(
        `UPDATE ${s}.due_work SET run_at = $3, last_error = $4, status = $5, lease_owner = NULL, lease_until = NULL,
           attempts = CASE WHEN $6 THEN 0 ELSE attempts END,
           dedupe_key = CASE WHEN $5 = 'dead' THEN NULL ELSE dedupe_key END
         WHERE id = $1 AND lease_owner = $2`,
        [id, owner, next.runAt, next.lastError, next.dead ? "dead" : "ready", next.resetAttempts ?? false],
      );
      return r.rowCount === 1;
    },
    async releaseAllLeases(now) {
      const r = await tx.run(
        `UPDATE ${s}.due_work SET lease_owner = NULL, lease_until = NULL WHERE status = 'ready' AND lease_owner IS NOT NULL AND lease_until > $1`,
        [now],
      );
      return r.rowCount;
    },
    async completeMany(ids, owner) {
      if (!ids.length) return [];
      const r = await tx.run(`DELETE FROM ${s}.due_work WHERE id = ANY($1::text[]) AND lease_owner = $2 RETURNING id`, [ids, owner]);
      return r.rows.map((row) => String(row.id));
    },
    async releaseMany(owner, items) {
      if (!items.length) return [];
      const r = await tx.run(
        `UPDATE ${s}.due_work w SET run_at = x.run_at, last_error = x.last_error, status = 'ready', lease_owner = NULL, lease_until = NULL
         FROM unnest($1::text[], $2::bigint[], $3::text[]) AS x(id, run_at, last_error)
         WHERE w.id = x.id AND w.lease_owner = $4
         RETURNING w.id`,
        [items.map((i) => i.id), items.map((i) => i.runAt), items.map((i) => i.lastError), owner],
      );
      return r.rows.map((row) => String(row.id));
    },
    async takeNext({ kind, groups, owner, now, leaseUntil }) {
      if (!groups.length) return [];
      const { rows } = await tx.run(
        `WITH wanted AS (SELECT g, count(*)::int AS n FROM unnest($1::text[]) AS g WHERE ${ownerAliveSql(s, "$4", "$3")} GROUP BY g),
         picked AS (
           SELECT next.id FROM wanted CROSS JOIN LATERAL (
             SELECT d.id FROM ${s}.due_work d
             WHERE d.group_key = wanted.g AND d.status = 'ready' AND d.kind = $2 AND d.run_at <= $3
               AND (d.lease_until IS NULL OR d.lease_until <= $3)
             ORDER BY d.run_at, d.id
             LIMIT wanted.n
             FOR UPDATE SKIP LOCKED
           ) next
         )
         UPDATE ${s}.due_work w SET lease_owner = $4, lease_until = $5, attempts = w.attempts + 1
         FROM picked WHERE w.id = picked.id
         RETURNING w.*`,
        [groups, kind, now, owner, leaseUntil],
      );
      return rows.map(DUE_WORK.fromRow).sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
    },
    async get(id) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.due_work WHERE id = $1`, [id]);
      return rows[0] ? DUE_WORK.fromRow(rows[0]) : null;
    },
    async stats(now) {
      const { rows } = await tx.read(
        `SELECT kind,
           count(*) FILTER (WHERE status = 'dead') AS dead,
           count(*) FILTER (WHERE status = 'ready' AND lease_until > $1) AS leased,
           count(*) FILTER (WHERE status = 'ready' AND (lease_until IS NULL OR lease_until <= $1) AND run_at <= $1) AS due,
           count(*) FILTER (WHERE status = 'ready' AND (lease_until IS NULL OR lease_until <= $1) AND run_at > $1) AS scheduled,
           min(run_at) FILTER (WHERE status = 'ready' AND (lease_until IS NULL OR lease_until <= $1) AND run_at <= $1) AS oldest
         FROM ${s}.due_work GROUP BY kind`,
        [now],
      );
      return rows.map((r) => ({
        kind: String(r.kind),
        due: Number(r.due),
        leased: Number(r.leased),
        scheduled: Number(r.scheduled),
        dead: Number(r.dead),
        oldestDueAt: r.oldest === null || r.oldest === undefined ? null : Number(r.oldest),
      }));
    },
    async nextRunAt() {
      const { rows } = await tx.read(`SELECT min(greatest(run_at, coalesce(lease_until, 0))) AS next FROM ${s}.due_work WHERE status = 'ready'`);
      return rows[0]?.next === null || rows[0]?.next === undefined ? null : Number(rows[0].next);
    },
  };
}

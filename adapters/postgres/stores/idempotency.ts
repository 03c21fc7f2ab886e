import type { IdempotencyRecord, IdempotencyStore } from "../../../src/ports/storage";
import type { PgTxContext } from "../pg-tx";
import { IDEMPOTENCY_KEYS } from "../tables";

export function idempotencyStore(tx: PgTxContext): IdempotencyStore {
  const s = tx.s;
  const insert = IDEMPOTENCY_KEYS.insertSql(s);
  return {
    async claim(record: IdempotencyRecord) {
      for (;;) {
        const inserted = await tx.run(`${insert} ON CONFLICT (account_id, key) DO NOTHING`, [IDEMPOTENCY_KEYS.jsonRows([record])]);
        if (inserted.rowCount === 1) return { inserted: true as const };
        const { rows } = await tx.run(`SELECT * FROM ${s}.idempotency_keys WHERE account_id = $1 AND key = $2 FOR UPDATE`, [
          record.accountId,
          record.key,
        ]);
        if (rows[0]) return { inserted: false as const, existing: IDEMPOTENCY_KEYS.fromRow(rows[0]) };
        // deleted between the two statements: try the insert again
      }
    },
    async put(record) {
      await tx.run(
        `${insert} ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
           locked_at = EXCLUDED.locked_at, response = EXCLUDED.response, created = EXCLUDED.created,
           expires_at = EXCLUDED.expires_at`,
        [IDEMPOTENCY_KEYS.jsonRows([record])],
      );
    },
    async replaceIf(record, expected) {
      const r = await tx.run(
        `UPDATE ${s}.idempotency_keys SET locked_at = $5::bigint, response = $6::json, expires_at = $7
         WHERE account_id = $1 AND key = $2 AND fingerprint = $3 AND created = $4
           AND locked_at IS NOT DISTINCT FROM $8::bigint AND (response IS NOT NULL) = $9::boolean`,
        [
          record.accountId,
          record.key,
          record.fingerprint,
          record.created,
          record.lockedAt,
          record.response === null ? null : JSON.stringify(record.response),
          record.expiresAt,
          expected.lockedAt,
          expected.responded,
        ],
      );
      return r.rowCount === 1;
    },
    async delete(accountId, key) {
      await tx.run(`DELETE FROM ${s}.idempotency_keys WHERE account_id = $1 AND key = $2`, [accountId, key]);
    },
    pruneExpired: (now, limit) => tx.prune("idempotency_keys", "account_id, key", "expires_at <= $1", now, limit),
  };
}

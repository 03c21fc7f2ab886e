import { IdempotencyKeyLostError, type IdempotencyRecord, type IdempotencyStore } from "../../../src/ports/public";
import { RELAXED_COMMIT_ROW } from "../driver";
import { bufferedUpdate } from "../buffered-update";
import type { PgTxContext } from "../pg-tx";
import { IDEMPOTENCY_KEYS, IDEMPOTENCY_SAVES, type IdempotencySave } from "../tables";

/** `replaceAtCommit`: the new row over the key, where the row stands as expected. */
const save = (strict: boolean) =>
  bufferedUpdate(
    IDEMPOTENCY_SAVES,
    ["accountId", "key"],
    ["lockedAt", "response", "expiresAt"],
    (c) =>
      `${c("fingerprint").t} = ${c("fingerprint").x} AND ${c("created").t} = ${c("created").x}` +
      ` AND ${c("lockedAt").t} IS NOT DISTINCT FROM ${c("expectedLockedAt").x} AND (${c("response").t} IS NOT NULL) = ${c("expectedResponded").x}`,
    { strict, mismatch: (records: IdempotencySave[]) => new IdempotencyKeyLostError(records[0]!.accountId, records[0]!.key) },
  );
const requiredSave = save(true);
const optionalSave = save(false);

export function idempotencyStore(tx: PgTxContext): IdempotencyStore {
  const s = tx.s;
  const insert = IDEMPOTENCY_KEYS.insertSql(s);
  return {
    async claim(record: IdempotencyRecord) {
      for (;;) {
        // alone in an autocommit session, the insert carries the session's commit mode with it
        const relaxed = tx.durable ? "" : `, ${RELAXED_COMMIT_ROW}`;
        const inserted = await tx.run(`${insert}${relaxed} ON CONFLICT (account_id, key) DO NOTHING`, [IDEMPOTENCY_KEYS.jsonRows([record])]);
        if (inserted.rowCount === 1) return { inserted: true as const };
        const { rows } = await tx.run(`SELECT * FROM ${s}.idempotency_keys WHERE account_id = $1 AND key = $2 FOR UPDATE`, [record.accountId, record.key]);
        if (rows[0]) return { inserted: false as const, existing: IDEMPOTENCY_KEYS.fromRow(rows[0]) };
        // deleted between the two statements: try the insert again
      }
    },
    async put(record) {
      await tx.run(
        `${insert} ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
           locked_at = EXCLUDED.locked_at, response = EXCLUDED.response, created = EXCLUDED.created,
           expires_at = EXCLUDED.expires_at, owner = EXCLUDED.owner`,
        [IDEMPOTENCY_KEYS.jsonRows([record])],
      );
    },
    async replaceAtCommit(record, expected, options) {
      const update = (options.required ? requiredSave : optionalSave)(s);
      await tx.bufferUpdates(update, [{ ...record, expectedLockedAt: expected.lockedAt, expectedResponded: expected.responded }]);
    },
    async delete(accountId, key) {
      await tx.run(`DELETE FROM ${s}.idempotency_keys WHERE account_id = $1 AND key = $2`, [accountId, key]);
    },
    pruneExpired: (now, limit) => tx.prune("idempotency_keys", "account_id, key", "expires_at <= $1", now, limit),
  };
}

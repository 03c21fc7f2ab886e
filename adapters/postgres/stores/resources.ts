import { StaleResourceError, type ResourceStore } from "../../../src/ports/public";
import { keysetSql } from "../keyset";
import { bufferedUpdate } from "../buffered-update";
import type { PgTxContext } from "../pg-tx";
import { RESOURCES } from "../tables";

/** A resource written back from the version it was read at (`updateMany`). */
const resourceUpdate = bufferedUpdate(
  RESOURCES,
  ["accountId", "id"],
  ["status", "reference", "data", "version", "updated"],
  (c) => `${c("version").t} = ${c("version").x} - 1`,
  {
    mismatch: (records) =>
      new StaleResourceError(
        records[0]!.accountId,
        records.map((r) => r.id),
      ),
  },
);

export function resourceStore(tx: PgTxContext): ResourceStore {
  const s = tx.s;
  return {
    async insert(records) {
      tx.buffer(RESOURCES, records);
    },
    async get(accountId, id, options) {
      const { rows } = await tx.select(`SELECT * FROM ${s}.resources WHERE account_id = $1 AND id = $2`, [accountId, id], options);
      return rows[0] ? RESOURCES.fromRow(rows[0]) : null;
    },
    async getMany(accountId, ids, options) {
      if (ids.length === 0) return [];
      const { rows } = await tx.select(`SELECT * FROM ${s}.resources WHERE account_id = $1 AND id = ANY($2::text[])`, [accountId, [...ids]], options, "id");
      return rows.map(RESOURCES.fromRow);
    },
    async delete(accountId, id) {
      return (await tx.run(`DELETE FROM ${s}.resources WHERE account_id = $1 AND id = $2`, [accountId, id])).rowCount === 1;
    },
    async update(r) {
      const u = await tx.run(
        `UPDATE ${s}.resources SET status = $3, reference = $4, data = $5::jsonb, version = $6, updated = $7
         WHERE account_id = $1 AND id = $2 AND version = $6 - 1`,
        [r.accountId, r.id, r.status, r.reference, JSON.stringify(r.data), r.version, r.updated],
      );
      return u.rowCount === 1;
    },
    async updateMany(records) {
      await tx.bufferUpdates(resourceUpdate(s), records);
    },
    async list(query) {
      const { text, params } = keysetSql(`${s}.resources`, query, { filters: { kind: query.kind }, reference: true, metadata: true });
      return (await tx.read(text, params)).rows.map(RESOURCES.fromRow);
    },
  };
}

import type { EventStore } from "../../../src/ports/public";
import { keysetSql } from "../keyset";
import { pruneDaily } from "../layout";
import type { PgTxContext } from "../pg-tx";
import { EVENTS } from "../tables";

export function eventStore(tx: PgTxContext): EventStore {
  const s = tx.s;
  return {
    async insert(events) {
      tx.buffer(EVENTS, events);
    },
    async get(accountId, id) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.events WHERE account_id = $1 AND id = $2`, [accountId, id]);
      return rows[0] ? EVENTS.fromRow(rows[0]) : null;
    },
    async getMany(accountId, ids) {
      if (!ids.length) return [];
      const { rows } = await tx.read(`SELECT * FROM ${s}.events WHERE account_id = $1 AND id = ANY($2::text[])`, [accountId, ids]);
      return rows.map(EVENTS.fromRow);
    },
    async list(query) {
      const { text, params } = keysetSql(`${s}.events`, query, { statusColumn: "type" });
      return (await tx.read(text, params)).rows.map(EVENTS.fromRow);
    },
    pruneBefore: (before, limit) => pruneDaily(tx, "events", before, limit),
  };
}

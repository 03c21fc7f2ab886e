import type { DeliveryLogStore } from "../../../src/ports/public";
import { keysetSql } from "../keyset";
import { pruneDaily } from "../layout";
import type { PgTxContext } from "../pg-tx";
import { WEBHOOK_DELIVERIES } from "../tables";

export function deliveryLogStore(tx: PgTxContext): DeliveryLogStore {
  const s = tx.s;
  return {
    async insert(records) {
      tx.buffer(WEBHOOK_DELIVERIES, records);
    },
    async list(query) {
      const filters = { endpoint_id: query.endpointId, ...(query.eventId !== undefined ? { event_id: query.eventId } : {}) };
      const { text, params } = keysetSql(`${s}.webhook_deliveries`, query, { filters });
      return (await tx.read(text, params)).rows.map(WEBHOOK_DELIVERIES.fromRow);
    },
    pruneBefore: (before, limit) => pruneDaily(tx, "webhook_deliveries", before, limit),
  };
}

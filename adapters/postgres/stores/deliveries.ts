import type { DeliveryLogStore } from "../../../src/ports/public";
import { keysetSql } from "../keyset";
import { pruneDaily } from "../layout";
import type { PgTxContext } from "../pg-tx";
import { WEBHOOK_DELIVERIES } from "../tables";

/** What an attempt's `status` can be (the column's CHECK, migration 2). */
const DELIVERY_STATUSES = ["succeeded", "failed"] as const;

export function deliveryLogStore(tx: PgTxContext): DeliveryLogStore {
  const s = tx.s;
  return {
    async insert(records) {
      tx.buffer(WEBHOOK_DELIVERIES, records);
    },
    async list(query) {
      const { text, params } = deliveryListSql(s, query);
      return (await tx.read(text, params)).rows.map(WEBHOOK_DELIVERIES.fromRow);
    },
    pruneBefore: (before, limit) => pruneDaily(tx, "webhook_deliveries", before, limit),
  };
}

/**
 * The statement of one page of an endpoint's attempts, in schema `s`. The log keeps no index of
 * its own for an endpoint's newest attempts (migration 23): with no status or event filter, the
 * page reads the status index one status at a time.
 */
export function deliveryListSql(s: string, query: Parameters<DeliveryLogStore["list"]>[0]): { text: string; params: unknown[] } {
  const filters = { endpoint_id: query.endpointId, ...(query.eventId !== undefined ? { event_id: query.eventId } : {}) };
  return keysetSql(`${s}.webhook_deliveries`, query, { filters, eachStatus: query.eventId === undefined ? DELIVERY_STATUSES : [] });
}

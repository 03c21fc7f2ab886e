import type { SimulatedChainStore } from "../../../src/ports/storage";
import { SIMULATED_TRANSFERS } from "../chain-tables";
import type { PgTxContext } from "../pg-tx";

/** `SimulatedChainStore` on one transaction; its writes go out at once (they are read back at once). */
export function simulatedChainStore(tx: PgTxContext): SimulatedChainStore {
  const s = tx.s;
  return {
    async addToCounter(scope, delta) {
      const { rows } = await tx.run(
        `INSERT INTO ${s}.simulated_counters AS c (scope, value) VALUES ($1, $2::numeric)
         ON CONFLICT (scope) DO UPDATE SET value = c.value + EXCLUDED.value RETURNING value::text`,
        [scope, delta.toString()],
      );
      return BigInt(rows[0]!.value as string);
    },
    async getCounter(scope) {
      const { rows } = await tx.read(`SELECT value::text FROM ${s}.simulated_counters WHERE scope = $1`, [scope]);
      return rows[0] ? BigInt(rows[0].value as string) : 0n;
    },

    async insertTransfer(record) {
      const { rowCount } = await tx.run(SIMULATED_TRANSFERS.insertSql(s), [SIMULATED_TRANSFERS.jsonRows([record])]);
      if (rowCount === 1) return record;
      const existing = await this.getTransfer(record.chain, record.transferId);
      if (!existing) throw new Error(`simulated transfer ${record.transferId} neither inserted nor found`);
      return existing;
    },
    async getTransfer(chain, transferId) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.simulated_transfers WHERE chain = $1 AND transfer_id = $2`, [chain, transferId]);
      return rows[0] ? SIMULATED_TRANSFERS.fromRow(rows[0]) : null;
    },
    async findTransferByHash(chain, txHash) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.simulated_transfers WHERE chain = $1 AND tx_hash = $2`, [chain, txHash]);
      return rows[0] ? SIMULATED_TRANSFERS.fromRow(rows[0]) : null;
    },
    async listInbound(chain, filter) {
      const { rows } = await tx.read(
        `SELECT * FROM ${s}.simulated_transfers WHERE chain = $1 AND direction = 'in' AND (
           (dropped_at IS NULL AND included_at >= $2) OR dropped_at >= $3)
         ORDER BY included_at, transfer_id COLLATE "C"`,
        [chain, filter.includedFrom, filter.droppedSince],
      );
      return rows.map(SIMULATED_TRANSFERS.fromRow);
    },
    async reorganize(chain, range, moveTo, droppedAt) {
      const { rowCount } = await tx.run(
        `UPDATE ${s}.simulated_transfers
         SET included_at = CASE WHEN direction = 'out' THEN $4 ELSE included_at END,
             dropped_at = CASE WHEN direction = 'in' THEN $5 ELSE dropped_at END
         WHERE chain = $1 AND included_at BETWEEN $2 AND $3 AND (direction = 'out' OR dropped_at IS NULL)`,
        [chain, range.from, range.to, moveTo, droppedAt],
      );
      return rowCount;
    },
  };
}

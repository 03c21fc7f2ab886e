import type { SimulatedChainStore, SimulatedTransferRecord } from "../../../src/ports/storage";
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

    async insertTransfers(records) {
      if (!records.length) return [];
      const { rowCount } = await tx.run(SIMULATED_TRANSFERS.insertSql(s), [SIMULATED_TRANSFERS.jsonRows(records)]);
      if (rowCount === records.length) return [...records];
      // some existed (or repeat within the call): every one as stored now
      const stored = new Map<string, SimulatedTransferRecord>();
      for (const chain of new Set(records.map((r) => r.chain))) {
        const ids = records.filter((r) => r.chain === chain).map((r) => r.transferId);
        for (const [id, record] of await this.getTransfers(chain, ids)) stored.set(`${chain}\u0000${id}`, record);
      }
      return records.map((r) => {
        const found = stored.get(`${r.chain}\u0000${r.transferId}`);
        if (!found) throw new Error(`simulated transfer ${r.transferId} neither inserted nor found`);
        return found;
      });
    },
    async getTransfers(chain, transferIds) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.simulated_transfers WHERE chain = $1 AND transfer_id = ANY($2::text[])`, [
        chain,
        [...new Set(transferIds)],
      ]);
      return new Map(rows.map((row) => [row.transfer_id as string, SIMULATED_TRANSFERS.fromRow(row)]));
    },
    async findTransfersByHash(chain, txHashes) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.simulated_transfers WHERE chain = $1 AND tx_hash = ANY($2::text[])`, [
        chain,
        [...new Set(txHashes)],
      ]);
      return new Map(rows.map((row) => [row.tx_hash as string, SIMULATED_TRANSFERS.fromRow(row)]));
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

import type { ChainStateStore, ChainTransactionRecord } from "../../../src/ports/storage";
import { CHAIN_ADDRESSES, CHAIN_BLOCKS, CHAIN_DEPOSITS, CHAIN_SWEEPS, CHAIN_TRANSACTIONS } from "../chain-tables";
import type { PgTxContext } from "../pg-tx";

/**
 * `ChainStateStore` on one transaction. Its writes go out at once, not through the buffers:
 * chain adapters read them back in the same transaction, and they are few.
 */
export function chainStateStore(tx: PgTxContext): ChainStateStore {
  const s = tx.s;
  const txColumns = CHAIN_TRANSACTIONS.columns.filter((c) => c.name !== "chain" && c.name !== "transfer_id" && c.name !== "created");
  const upsertTransaction = `${CHAIN_TRANSACTIONS.insertSql(s)} ON CONFLICT (chain, transfer_id) DO UPDATE SET ${txColumns
    .map((c) => `${c.name} = EXCLUDED.${c.name}`)
    .join(", ")}`;
  /** Makes each attempt's hash findable; a hash of another transfer is refused. */
  const indexHashes = async (record: ChainTransactionRecord) => {
    if (!record.attempts.length) return;
    const hashes = record.attempts.map((a) => a.txHash);
    const { rows } = await tx.run(
      `WITH added AS (
         INSERT INTO ${s}.chain_transaction_hashes (chain, tx_hash, transfer_id)
         SELECT $1, h, $2 FROM unnest($3::text[]) AS h
         ON CONFLICT (chain, tx_hash) DO NOTHING RETURNING 1)
       SELECT count(*) AS foreign FROM ${s}.chain_transaction_hashes
       WHERE chain = $1 AND tx_hash = ANY($3::text[]) AND transfer_id <> $2`,
      [record.chain, record.transferId, hashes],
    );
    if (Number(rows[0]!.foreign) > 0) throw new Error(`a transaction hash of ${record.transferId} belongs to another transfer`);
  };
  return {
    async takeSequence(scope, floor) {
      const { rows } = await tx.run(
        `INSERT INTO ${s}.chain_sequences AS q (scope, next) VALUES ($1, $2::bigint + 1)
         ON CONFLICT (scope) DO UPDATE SET next = GREATEST(q.next, $2::bigint) + 1
         RETURNING next - 1 AS taken`,
        [scope, floor],
      );
      return Number(rows[0]!.taken);
    },

    async getTransaction(chain, transferId, options) {
      const { rows } = await tx.select(`SELECT * FROM ${s}.chain_transactions WHERE chain = $1 AND transfer_id = $2`, [chain, transferId], options);
      return rows[0] ? CHAIN_TRANSACTIONS.fromRow(rows[0]) : null;
    },
    async findTransactionByHash(chain, txHash) {
      const { rows } = await tx.read(
        `SELECT t.* FROM ${s}.chain_transaction_hashes h
         JOIN ${s}.chain_transactions t ON t.chain = h.chain AND t.transfer_id = h.transfer_id
         WHERE h.chain = $1 AND h.tx_hash = $2`,
        [chain, txHash],
      );
      return rows[0] ? CHAIN_TRANSACTIONS.fromRow(rows[0]) : null;
    },
    async insertTransaction(record) {
      const { rowCount } = await tx.run(`${CHAIN_TRANSACTIONS.insertSql(s)} ON CONFLICT (chain, transfer_id) DO NOTHING`, [
        CHAIN_TRANSACTIONS.jsonRows([record]),
      ]);
      if (rowCount !== 1) return false;
      await indexHashes(record);
      return true;
    },
    async putTransaction(record) {
      await tx.run(upsertTransaction, [CHAIN_TRANSACTIONS.jsonRows([record])]);
      await indexHashes(record);
    },
    async listOpenTransactions(chain, limit) {
      const { rows } = await tx.read(
        `SELECT * FROM ${s}.chain_transactions WHERE chain = $1 AND status = 'signed' ORDER BY created, transfer_id LIMIT $2`,
        [chain, limit],
      );
      return rows.map(CHAIN_TRANSACTIONS.fromRow);
    },

    async listTransactionsFrom(chain, from, minNonce) {
      const { rows } = await tx.read(
        `SELECT * FROM ${s}.chain_transactions WHERE chain = $1 AND from_address = $2 AND nonce >= $3 ORDER BY nonce, transfer_id`,
        [chain, from, minNonce],
      );
      return rows.map(CHAIN_TRANSACTIONS.fromRow);
    },

    async getAddress(wallet, key) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.chain_addresses WHERE wallet = $1 AND key = $2`, [wallet, key]);
      return rows[0] ? CHAIN_ADDRESSES.fromRow(rows[0]) : null;
    },
    async insertAddress(record) {
      await tx.run(CHAIN_ADDRESSES.insertSql(s), [CHAIN_ADDRESSES.jsonRows([record])]);
    },
    async listAddresses(wallet, afterIndex = 0) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.chain_addresses WHERE wallet = $1 AND key_index > $2 ORDER BY key_index`, [
        wallet,
        afterIndex,
      ]);
      return rows.map(CHAIN_ADDRESSES.fromRow);
    },

    async getScanTip(chain) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.chain_scan_tips WHERE chain = $1`, [chain]);
      return rows[0] ? CHAIN_BLOCKS.fromRow(rows[0]) : null;
    },
    async moveScanTip(chain, expected, next) {
      const { rowCount } =
        expected === null
          ? await tx.run(`INSERT INTO ${s}.chain_scan_tips (chain, number, hash) VALUES ($1, $2, $3) ON CONFLICT (chain) DO NOTHING`, [
              chain,
              next.number,
              next.hash,
            ])
          : await tx.run(`UPDATE ${s}.chain_scan_tips SET number = $2, hash = $3 WHERE chain = $1 AND number = $4 AND hash = $5`, [
              chain,
              next.number,
              next.hash,
              expected.number,
              expected.hash,
            ]);
      return rowCount === 1;
    },
    async listBlocks(chain) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.chain_blocks WHERE chain = $1 ORDER BY number`, [chain]);
      return rows.map(CHAIN_BLOCKS.fromRow);
    },
    async putBlocks(blocks) {
      if (blocks.length) await tx.run(CHAIN_BLOCKS.insertSql(s), [CHAIN_BLOCKS.jsonRows(blocks)]);
    },
    async deleteBlocks(chain, range) {
      const { rowCount } = await tx.run(`DELETE FROM ${s}.chain_blocks WHERE chain = $1 AND (number >= $2 OR number < $3)`, [
        chain,
        range.from ?? null,
        range.below ?? null,
      ]);
      return rowCount;
    },

    async insertDeposits(records) {
      if (!records.length) return 0;
      return (await tx.run(CHAIN_DEPOSITS.insertSql(s), [CHAIN_DEPOSITS.jsonRows(records)])).rowCount;
    },
    async revertDeposits(chain, fromBlock, at) {
      const { rows } = await tx.run(
        `UPDATE ${s}.chain_deposits SET reverted_at = $3 WHERE chain = $1 AND block_number >= $2 AND reverted_at IS NULL RETURNING *`,
        [chain, fromBlock, at],
      );
      return rows.map(CHAIN_DEPOSITS.fromRow).sort((a, b) => a.blockNumber - b.blockNumber);
    },
    async listDeposits(chain, filter) {
      const { rows } = await tx.read(
        `SELECT * FROM ${s}.chain_deposits WHERE chain = $1 AND (
           (reverted_at IS NULL AND block_number >= $2)
           OR reverted_at >= $3
           OR (reverted_at IS NULL AND sweep IS NULL AND block_number <= $4))
         ORDER BY block_number, transfer_id`,
        [chain, filter.minBlock ?? null, filter.revertedSince ?? null, filter.unsweptTo ?? null],
      );
      return rows.map(CHAIN_DEPOSITS.fromRow);
    },
    async setDepositSweep(chain, transferIds, sweep) {
      if (!transferIds.length) return;
      await tx.run(`UPDATE ${s}.chain_deposits SET sweep = $3 WHERE chain = $1 AND transfer_id = ANY($2::text[])`, [
        chain,
        [...transferIds],
        sweep,
      ]);
    },

    async insertSweep(record) {
      await tx.run(CHAIN_SWEEPS.insertSql(s), [CHAIN_SWEEPS.jsonRows([record])]);
    },
    async updateSweep(record) {
      const { rowCount } = await tx.run(
        `UPDATE ${s}.chain_sweeps SET address = $3, key_index = $4, asset = $5, amount = $6::numeric, status = $7, attempt = $8,
           reason = $9, updated = $10 WHERE chain = $1 AND id = $2`,
        [record.chain, record.id, record.address, record.keyIndex, record.asset, record.amount.toString(), record.status, record.attempt, record.reason, record.updated],
      );
      if (rowCount !== 1) throw new Error(`no sweep ${record.id}`);
    },
    async listOpenSweeps(chain) {
      const { rows } = await tx.read(
        `SELECT * FROM ${s}.chain_sweeps WHERE chain = $1 AND status IN ('topping_up', 'moving') ORDER BY created, id`,
        [chain],
      );
      return rows.map(CHAIN_SWEEPS.fromRow);
    },
  };
}

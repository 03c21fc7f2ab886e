import type { ChainDepositRecord, ChainStateStore } from "../../../src/ports/storage";
import { frozen, k2, type MemoryTx } from "../memory-tables";

const byNumber = <T extends { number: number }>(a: T, b: T) => a.number - b.number;

/** `ChainStateStore` over the memory tables (transactions there run one at a time). */

export function chainStateStore(m: MemoryTx): ChainStateStore {
  const t = m.t.chain;
  const put = m.put.bind(m);
  const remove = m.remove.bind(m);
  return {
    async takeSequence(scope, floor) {
      const stored = t.sequences.get(scope);
      const value = stored === undefined || stored < floor ? floor : stored;
      put(t.sequences, scope, value + 1);
      return value;
    },

    async getTransaction(chain, transferId) {
      return t.transactions.get(k2(chain, transferId)) ?? null;
    },
    async findTransactionByHash(chain, txHash) {
      const key = t.hashes.get(k2(chain, txHash));
      return key === undefined ? null : (t.transactions.get(key) ?? null);
    },
    async insertTransaction(record) {
      if (t.transactions.has(k2(record.chain, record.transferId))) return false;
      await this.putTransaction(record);
      return true;
    },
    async putTransaction(record) {
      const key = k2(record.chain, record.transferId);
      for (const attempt of record.attempts) {
        const owner = t.hashes.get(k2(record.chain, attempt.txHash));
        if (owner !== undefined && owner !== key) throw new Error(`transaction hash ${attempt.txHash} belongs to another transfer`);
      }
      put(t.transactions, key, frozen(record));
      for (const attempt of record.attempts) put(t.hashes, k2(record.chain, attempt.txHash), key);
    },
    async listOpenTransactions(chain, limit) {
      return [...t.transactions.values()]
        .filter((r) => r.chain === chain && r.status === "signed")
        .sort((a, b) => a.created - b.created || (a.transferId < b.transferId ? -1 : 1))
        .slice(0, limit);
    },

    async listTransactionsFrom(chain, from, minNonce) {
      return [...t.transactions.values()]
        .filter((r) => r.chain === chain && r.from === from && r.nonce !== null && r.nonce >= minNonce)
        .sort((a, b) => a.nonce! - b.nonce! || (a.transferId < b.transferId ? -1 : 1));
    },

    async getAddress(wallet, key) {
      return t.addresses.get(k2(wallet, key)) ?? null;
    },
    async insertAddress(record) {
      if (t.addresses.has(k2(record.wallet, record.key))) throw new Error(`address key ${record.key} exists in ${record.wallet}`);
      for (const a of t.addresses.values()) {
        if (a.wallet === record.wallet && a.index === record.index) throw new Error(`address index ${record.index} exists in ${record.wallet}`);
      }
      put(t.addresses, k2(record.wallet, record.key), frozen(record));
    },
    async listAddresses(wallet, afterIndex = 0) {
      return [...t.addresses.values()].filter((a) => a.wallet === wallet && a.index > afterIndex).sort((a, b) => a.index - b.index);
    },

    async getScanTip(chain) {
      return t.tips.get(chain) ?? null;
    },
    async moveScanTip(chain, expected, next) {
      const current = t.tips.get(chain) ?? null;
      const same = current === null || expected === null ? current === expected : current.number === expected.number && current.hash === expected.hash;
      if (!same) return false;
      put(t.tips, chain, frozen({ ...next, chain }));
      return true;
    },
    async listBlocks(chain) {
      return [...t.blocks.values()].filter((b) => b.chain === chain).sort(byNumber);
    },
    async putBlocks(blocks) {
      for (const b of blocks) put(t.blocks, k2(b.chain, String(b.number)), frozen(b));
    },
    async deleteBlocks(chain, range) {
      let n = 0;
      for (const [key, b] of [...t.blocks]) {
        if (b.chain !== chain) continue;
        if ((range.from !== undefined && b.number >= range.from) || (range.below !== undefined && b.number < range.below)) {
          remove(t.blocks, key);
          n++;
        }
      }
      return n;
    },

    async insertDeposits(records) {
      let n = 0;
      for (const r of records) {
        const key = k2(r.chain, r.transferId);
        if (t.deposits.has(key)) continue;
        put(t.deposits, key, frozen(r));
        n++;
      }
      return n;
    },
    async revertDeposits(chain, fromBlock, at) {
      const reverted: ChainDepositRecord[] = [];
      for (const [key, d] of [...t.deposits]) {
        if (d.chain !== chain || d.revertedAt !== null || d.blockNumber < fromBlock) continue;
        const next = frozen({ ...d, revertedAt: at });
        put(t.deposits, key, next);
        reverted.push(next);
      }
      return reverted.sort((a, b) => a.blockNumber - b.blockNumber);
    },
    async listDeposits(chain, filter) {
      return [...t.deposits.values()]
        .filter(
          (d) =>
            d.chain === chain &&
            ((filter.minBlock !== undefined && d.revertedAt === null && d.blockNumber >= filter.minBlock) ||
              (filter.revertedSince !== undefined && d.revertedAt !== null && d.revertedAt >= filter.revertedSince) ||
              (filter.unsweptTo !== undefined && d.revertedAt === null && d.sweep === null && d.blockNumber <= filter.unsweptTo)),
        )
        .sort((a, b) => a.blockNumber - b.blockNumber || (a.transferId < b.transferId ? -1 : 1));
    },
    async setDepositSweep(chain, transferIds, sweep) {
      for (const id of transferIds) {
        const key = k2(chain, id);
        const d = t.deposits.get(key);
        if (d) put(t.deposits, key, frozen({ ...d, sweep }));
      }
    },

    async insertSweep(record) {
      const key = k2(record.chain, record.id);
      if (t.sweeps.has(key)) throw new Error(`duplicate sweep ${record.id}`);
      put(t.sweeps, key, frozen(record));
    },
    async updateSweep(record) {
      const key = k2(record.chain, record.id);
      if (!t.sweeps.has(key)) throw new Error(`no sweep ${record.id}`);
      put(t.sweeps, key, frozen(record));
    },
    async listOpenSweeps(chain) {
      return [...t.sweeps.values()]
        .filter((s) => s.chain === chain && s.status !== "done" && s.status !== "abandoned")
        .sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
    },
  };
}

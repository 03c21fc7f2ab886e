import { compareStateKeys, decodeSortableUint, encodeSortableUint, type AdapterStateTx, type Json } from "../../../src/ports/public";

/** The namespace the EVM adapters keep their state in (`StorageAdapter.adapterState`); one for every EVM chain (a wallet serves them all). */
export const EVM_NAMESPACE = "evm";

/** One signed transaction of a transaction the adapter made (a fee replacement adds another). */
export interface EvmTransactionAttempt {
  txHash: string;
  /** The signed, serialized transaction, exactly as sent. */
  raw: string;
  /** Fee caps it was signed with (decimal integers, wei). */
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  signedAt: number;
}

/** A transaction the adapter made once under an id, saved (signed) before it was sent. */
export interface EvmTransactionRecord {
  chain: string;
  /** Engine-chosen (a leg id) or adapter-chosen (a sweep's step); unique per chain. */
  transferId: string;
  /** What it does: `payout`, `top_up`, `sweep`, `gap`. */
  kind: string;
  /** Signing key index (0 the hot wallet) and its address. */
  keyIndex: number;
  from: string;
  to: string;
  asset: string;
  amount: bigint;
  /** Null for a refusal (nothing was signed). */
  nonce: number | null;
  /** `signed` (sent, in flight), `final`, `failed` (reverted or dropped), `rejected` (refused before signing). */
  status: "signed" | "final" | "failed" | "rejected";
  /** Why it was refused or failed. */
  reason: string | null;
  /** Oldest first; the last is the one sent most recently. */
  attempts: EvmTransactionAttempt[];
  /** The attempt that was mined, once one was. */
  minedHash: string | null;
  /** What the sender paid for gas once mined (wei): the operator's cost. */
  gasCost: bigint | null;
  created: number;
  updated: number;
}

/** A deposit address derived from the wallet's keys. */
export interface EvmAddressRecord {
  /** Whose keys: one wallet (a signer) serves every EVM chain. */
  wallet: string;
  /** What it was made for, e.g. `base:pi_…` (one address per intent and chain). */
  key: string;
  /** Derivation index: 1 and up, never reused. */
  index: number;
  address: string;
  chain: string;
  /** Block height of `chain` when it was made: no deposit to it can be older. */
  fromBlock: number;
  created: number;
}

export interface EvmBlockRecord {
  chain: string;
  number: number;
  hash: string;
}

export interface EvmDepositRecord {
  chain: string;
  /** Stable id of this transfer in this block (a re-inclusion in another block is another deposit). */
  transferId: string;
  address: string;
  asset: string;
  amount: bigint;
  txHash: string;
  blockNumber: number;
  blockHash: string;
  /** The block's time, epoch milliseconds. */
  blockTime: number;
  /** Height at which a reorganisation removed it, or null. */
  revertedAt: number | null;
  /** The sweep that moves it to the hot wallet, or null. */
  sweep: string | null;
  created: number;
}

export interface EvmSweepRecord {
  chain: string;
  id: string;
  address: string;
  keyIndex: number;
  asset: string;
  amount: bigint;
  /** `topping_up` (gas on its way), `moving` (the sweep transaction), `done`, `abandoned`. */
  status: "topping_up" | "moving" | "done" | "abandoned";
  /** Counts tries of the current step, so each try's transaction has its own id. */
  attempt: number;
  reason: string | null;
  created: number;
  updated: number;
}

/*
 * The keyspace (namespace `evm`; `<n>` is a number as `encodeSortableUint`; addresses in keys are
 * lowercase). The PostgreSQL migration 13 wrote this layout from the tables it replaced: change it
 * only with a step that rewrites what is stored.
 *
 *   seq/<scope>                                  counters: nonce:<chain>:<address>, address_index:<wallet>
 *   tx/<chain>/<transferId>                      a transaction (amounts as decimal strings)
 *   txhash/<chain>/<txHash>                      → transferId, for every attempt's hash
 *   txnonce/<chain>/<from>/<n>/<transferId>      → transferId, transactions by sender and nonce
 *   addr/<wallet>/<key>                          a derived address
 *   addridx/<wallet>/<n>                         → key, addresses by derivation index
 *   tip/<chain>                                  the last block read
 *   block/<chain>/<n>                            → hash, saved block hashes
 *   dep/<chain>/<transferId>                     a deposit
 *   depblock/<chain>/<n>/<transferId>            → transferId, deposits by block
 *   depreverted/<chain>/<n>/<transferId>         → transferId, reverted deposits by the height they were reverted at
 *   depunswept/<chain>/<n>/<transferId>          → transferId, deposits neither reverted nor swept, by block
 *   sweep/<chain>/<id>                           a sweep
 *   sweepopen/<chain>/<n>/<id>                   → id, sweeps not done or abandoned, by creation time
 *   hotwallet/<chain>                            → the hot wallet's address the chain's state was made with
 */
const n = (value: number | bigint) => encodeSortableUint(value);
const K = {
  seq: (scope: string) => `seq/${scope}`,
  tx: (chain: string, transferId: string) => `tx/${chain}/${transferId}`,
  txHash: (chain: string, txHash: string) => `txhash/${chain}/${txHash}`,
  txNoncePrefix: (chain: string, from: string) => `txnonce/${chain}/${from.toLowerCase()}/`,
  txNonce: (r: EvmTransactionRecord) => `${K.txNoncePrefix(r.chain, r.from)}${n(r.nonce!)}/${r.transferId}`,
  addr: (wallet: string, key: string) => `addr/${wallet.toLowerCase()}/${key}`,
  addrIndexPrefix: (wallet: string) => `addridx/${wallet.toLowerCase()}/`,
  tip: (chain: string) => `tip/${chain}`,
  blockPrefix: (chain: string) => `block/${chain}/`,
  dep: (chain: string, transferId: string) => `dep/${chain}/${transferId}`,
  depBlockPrefix: (chain: string) => `depblock/${chain}/`,
  depBlock: (d: EvmDepositRecord) => `${K.depBlockPrefix(d.chain)}${n(d.blockNumber)}/${d.transferId}`,
  depRevertedPrefix: (chain: string) => `depreverted/${chain}/`,
  depReverted: (d: EvmDepositRecord) => `${K.depRevertedPrefix(d.chain)}${n(d.revertedAt!)}/${d.transferId}`,
  depUnsweptPrefix: (chain: string) => `depunswept/${chain}/`,
  depUnswept: (d: EvmDepositRecord) => `${K.depUnsweptPrefix(d.chain)}${n(d.blockNumber)}/${d.transferId}`,
  sweep: (chain: string, id: string) => `sweep/${chain}/${id}`,
  sweepOpenPrefix: (chain: string) => `sweepopen/${chain}/`,
  sweepOpen: (s: EvmSweepRecord) => `${K.sweepOpenPrefix(s.chain)}${n(s.created)}/${s.id}`,
};

const isOpen = (s: EvmSweepRecord) => s.status === "topping_up" || s.status === "moving";
const unswept = (d: EvmDepositRecord) => d.revertedAt === null && d.sweep === null;

/**
 * What the EVM adapters keep, on one transaction of their namespace: counters (nonces, the next
 * deposit-address index), the transactions they signed, the addresses they derived, how far they
 * read each chain (the scan tip and recent block hashes), the deposits they saw and the sweeps
 * moving them, as typed records over the keys above. Each index is written in the transaction
 * that writes its record.
 */
export class EvmState {
  constructor(private readonly state: AdapterStateTx) {}

  /**
   * Takes the next number of a counter: the larger of its stored next value and `floor` (a
   * missing counter starts at `floor`), storing that plus one. The counter stays locked until
   * the transaction ends, so concurrent takers wait and never get the same number, and a number
   * taken in a transaction that rolls back is taken again.
   */
  async takeSequence(scope: string, floor: number): Promise<number> {
    const key = K.seq(scope);
    const stored = (await this.state.increment([[key, 0n]])).get(key)!; // created at zero and locked
    const taken = stored > BigInt(floor) ? stored : BigInt(floor);
    await this.state.put([[key, (taken + 1n).toString()]]);
    return Number(taken);
  }

  /** One transaction, by the id chosen for it (`lock`: locked until this transaction ends). */
  async getTransaction(chain: string, transferId: string, options?: { lock?: boolean }): Promise<EvmTransactionRecord | null> {
    const value = (await this.state.get([K.tx(chain, transferId)], options)).get(K.tx(chain, transferId));
    return value === undefined ? null : decodeTransaction(value);
  }

  /** The transaction one of whose attempts has this hash, or null. */
  async findTransactionByHash(chain: string, txHash: string): Promise<EvmTransactionRecord | null> {
    const id = (await this.state.get([K.txHash(chain, txHash)])).get(K.txHash(chain, txHash));
    return typeof id === "string" ? this.getTransaction(chain, id) : null;
  }

  /**
   * Inserts a record unless (chain, transferId) exists; returns whether it did. A concurrent
   * insert of the same id waits for the other transaction, then finds it and inserts nothing.
   */
  async insertTransaction(record: EvmTransactionRecord): Promise<boolean> {
    const key = K.tx(record.chain, record.transferId);
    if (!(await this.state.insert([[key, encodeTransaction(record)]])).get(key)!.inserted) return false;
    await this.index(record);
    return true;
  }

  /** Replaces the record of (chain, transferId) (a new attempt, an outcome); new hashes become findable. */
  async putTransaction(record: EvmTransactionRecord): Promise<void> {
    await this.state.put([[K.tx(record.chain, record.transferId), encodeTransaction(record)]]);
    await this.index(record);
  }

  /**
   * Transactions of `chain` sent by `from` with a nonce of at least `minNonce`, by nonce (the
   * ones the chain has not counted yet: after a reorganisation they must be sent again).
   */
  async listTransactionsFrom(chain: string, from: string, minNonce: number): Promise<EvmTransactionRecord[]> {
    const prefix = K.txNoncePrefix(chain, from);
    const ids = (await this.state.list({ prefix, from: prefix + n(Math.max(0, minNonce)) })).map((e) => e.value as string);
    const records = await this.state.get(ids.map((id) => K.tx(chain, id)));
    return ids.flatMap((id) => {
      const value = records.get(K.tx(chain, id));
      return value === undefined ? [] : [decodeTransaction(value)];
    });
  }

  /** Records `address` as the chain's hot wallet unless one is; answers the one recorded (the first). */
  async claimHotWallet(chain: string, address: string): Promise<string> {
    const key = `hotwallet/${chain}`;
    return (await this.state.insert([[key, address]])).get(key)!.value as string;
  }

  /** Every transaction the adapter made on `chain` (reconciliation reads them all: their gas, their sweeps). */
  async listTransactions(chain: string): Promise<EvmTransactionRecord[]> {
    return (await this.state.list({ prefix: `tx/${chain}/` })).map((e) => decodeTransaction(e.value));
  }

  /** The address derived for `key` in `wallet`, or null. */
  async getAddress(wallet: string, key: string): Promise<EvmAddressRecord | null> {
    const value = (await this.state.get([K.addr(wallet, key)])).get(K.addr(wallet, key));
    return value === undefined ? null : (value as EvmAddressRecord);
  }

  /** Records a derived address; a key or an index already recorded in the wallet throws. */
  async insertAddress(record: EvmAddressRecord): Promise<void> {
    const key = K.addr(record.wallet, record.key);
    const index = K.addrIndexPrefix(record.wallet) + n(record.index);
    const answers = await this.state.insert([
      [key, record as unknown as Json],
      [index, record.key],
    ]);
    if (!answers.get(key)!.inserted) throw new Error(`address key ${record.key} exists in ${record.wallet}`);
    if (!answers.get(index)!.inserted) throw new Error(`address index ${record.index} exists in ${record.wallet}`);
  }

  /** The addresses of the wallet with an index above `afterIndex` (all: 0), by index. */
  async listAddresses(wallet: string, afterIndex = 0): Promise<EvmAddressRecord[]> {
    const prefix = K.addrIndexPrefix(wallet);
    const keys = (await this.state.list({ prefix, from: prefix + n(Math.max(0, afterIndex + 1)) })).map((e) => e.value as string);
    const records = await this.state.get(keys.map((key) => K.addr(wallet, key)));
    return keys.flatMap((key) => {
      const value = records.get(K.addr(wallet, key));
      return value === undefined ? [] : [value as EvmAddressRecord];
    });
  }

  /** The last block read on `chain`, or null before the first read. */
  async getScanTip(chain: string): Promise<EvmBlockRecord | null> {
    const value = (await this.state.get([K.tip(chain)])).get(K.tip(chain));
    return value === undefined ? null : (value as EvmBlockRecord);
  }

  /**
   * Moves the scan tip to `next` if it is still `expected` (null: none yet); returns false and
   * changes nothing otherwise (another process read the chain meanwhile). The tip stays locked
   * until the transaction ends, so of two processes that read the same tip one moves it.
   */
  async moveScanTip(chain: string, expected: EvmBlockRecord | null, next: EvmBlockRecord): Promise<boolean> {
    const key = K.tip(chain);
    const tip = { chain, number: next.number, hash: next.hash };
    if (expected === null) return (await this.state.insert([[key, tip]])).get(key)!.inserted;
    const current = (await this.state.get([key], { lock: true })).get(key) as EvmBlockRecord | undefined;
    if (!current || current.number !== expected.number || current.hash !== expected.hash) return false;
    await this.state.put([[key, tip]]);
    return true;
  }

  /** Saved block hashes of `chain`, lowest number first. */
  async listBlocks(chain: string): Promise<EvmBlockRecord[]> {
    const prefix = K.blockPrefix(chain);
    return (await this.state.list({ prefix })).map((e) => ({ chain, number: Number(decodeSortableUint(e.key.slice(prefix.length))), hash: e.value as string }));
  }

  /** Saves block hashes (a number saved before is replaced). */
  async putBlocks(blocks: readonly EvmBlockRecord[]): Promise<void> {
    await this.state.put(blocks.map((b) => [K.blockPrefix(b.chain) + n(b.number), b.hash] as const));
  }

  /** Deletes saved blocks numbered `from` and up, and those below `below`; returns how many. */
  async deleteBlocks(chain: string, range: { from?: number; below?: number }): Promise<number> {
    const prefix = K.blockPrefix(chain);
    let deleted = 0;
    if (range.from !== undefined) deleted += await this.state.deleteRange({ prefix, from: prefix + n(Math.max(0, range.from)) });
    if (range.below !== undefined && range.below > 0) deleted += await this.state.deleteRange({ prefix, to: prefix + n(range.below) });
    return deleted;
  }

  /** Records deposits; one whose (chain, transferId) exists already is skipped. Returns how many were new. */
  async insertDeposits(records: readonly EvmDepositRecord[]): Promise<number> {
    if (!records.length) return 0;
    const answers = await this.state.insert(records.map((d) => [K.dep(d.chain, d.transferId), encodeDeposit(d)] as const));
    const fresh = records.filter(
      (d, i) => answers.get(K.dep(d.chain, d.transferId))!.inserted && records.findIndex((o) => o.chain === d.chain && o.transferId === d.transferId) === i,
    );
    await this.state.put(fresh.flatMap(depositIndexes));
    return fresh.length;
  }

  /** Marks the deposits of `chain` in blocks `fromBlock` and up, not yet reverted, reverted at height `at`. Returns them. */
  async revertDeposits(chain: string, fromBlock: number, at: number): Promise<EvmDepositRecord[]> {
    const prefix = K.depBlockPrefix(chain);
    const ids = (await this.state.list({ prefix, from: prefix + n(Math.max(0, fromBlock)) })).map((e) => e.value as string);
    const reverted = (await this.deposits(chain, ids)).filter((d) => d.revertedAt === null).map((d) => ({ ...d, revertedAt: at }));
    await this.state.delete(reverted.filter((d) => d.sweep === null).map(K.depUnswept));
    await this.state.put(reverted.flatMap((d) => [[K.dep(chain, d.transferId), encodeDeposit(d)] as [string, Json], [K.depReverted(d), d.transferId]]));
    return reverted.sort(byBlock);
  }

  /**
   * Deposits of `chain` that match any given part of the filter: not reverted and in a block
   * `minBlock` or higher; reverted at `revertedSince` or later; not reverted, not swept and in
   * a block `unsweptTo` or lower. Lowest block first.
   */
  async listDeposits(chain: string, filter: { minBlock?: number; revertedSince?: number; unsweptTo?: number }): Promise<EvmDepositRecord[]> {
    const ids = new Set<string>();
    const collect = async (range: { prefix: string; from?: string; to?: string }) => {
      for (const e of await this.state.list(range)) ids.add(e.value as string);
    };
    if (filter.minBlock !== undefined) {
      const prefix = K.depBlockPrefix(chain);
      await collect({ prefix, from: prefix + n(Math.max(0, filter.minBlock)) });
    }
    if (filter.revertedSince !== undefined) {
      const prefix = K.depRevertedPrefix(chain);
      await collect({ prefix, from: prefix + n(Math.max(0, filter.revertedSince)) });
    }
    if (filter.unsweptTo !== undefined && filter.unsweptTo >= 0) {
      const prefix = K.depUnsweptPrefix(chain);
      await collect({ prefix, to: prefix + n(BigInt(filter.unsweptTo) + 1n) });
    }
    return (await this.deposits(chain, [...ids]))
      .filter(
        (d) =>
          (filter.minBlock !== undefined && d.revertedAt === null && d.blockNumber >= filter.minBlock) ||
          (filter.revertedSince !== undefined && d.revertedAt !== null && d.revertedAt >= filter.revertedSince) ||
          (filter.unsweptTo !== undefined && unswept(d) && d.blockNumber <= filter.unsweptTo),
      )
      .sort(byBlock);
  }

  /** Assigns deposits to a sweep (null: back to unswept). */
  async setDepositSweep(chain: string, transferIds: readonly string[], sweep: string | null): Promise<void> {
    const changed = (await this.deposits(chain, transferIds)).map((d) => ({ ...d, sweep }));
    await this.state.delete(changed.filter((d) => !unswept(d)).map(K.depUnswept));
    await this.state.put(
      changed.flatMap((d) => [
        [K.dep(chain, d.transferId), encodeDeposit(d)] as [string, Json],
        ...(unswept(d) ? [[K.depUnswept(d), d.transferId] as [string, Json]] : []),
      ]),
    );
  }

  /** Records a new sweep (its id must be new). */
  async insertSweep(record: EvmSweepRecord): Promise<void> {
    const key = K.sweep(record.chain, record.id);
    if (!(await this.state.insert([[key, encodeSweep(record)]])).get(key)!.inserted) throw new Error(`sweep ${record.id} exists`);
    if (isOpen(record)) await this.state.put([[K.sweepOpen(record), record.id]]);
  }

  /** Replaces a sweep's record (it must exist). */
  async updateSweep(record: EvmSweepRecord): Promise<void> {
    const key = K.sweep(record.chain, record.id);
    const old = (await this.state.get([key])).get(key);
    if (old === undefined) throw new Error(`no sweep ${record.id}`);
    const next = { ...record, created: decodeSweep(old).created };
    await this.state.put([[key, encodeSweep(next)], ...(isOpen(next) ? [[K.sweepOpen(next), next.id] as [string, Json]] : [])]);
    if (!isOpen(next)) await this.state.delete([K.sweepOpen(next)]);
  }

  /** Sweeps of `chain` not yet `done` or `abandoned`, oldest first. */
  async listOpenSweeps(chain: string): Promise<EvmSweepRecord[]> {
    const ids = (await this.state.list({ prefix: K.sweepOpenPrefix(chain) })).map((e) => e.value as string);
    const records = await this.state.get(ids.map((id) => K.sweep(chain, id)));
    return ids.flatMap((id) => {
      const value = records.get(K.sweep(chain, id));
      return value === undefined ? [] : [decodeSweep(value)];
    });
  }

  /** Makes each attempt's hash findable (one of another transfer is refused) and the nonce listable. */
  private async index(record: EvmTransactionRecord): Promise<void> {
    if (record.attempts.length) {
      const answers = await this.state.insert(record.attempts.map((a) => [K.txHash(record.chain, a.txHash), record.transferId] as const));
      for (const [key, { value }] of answers) {
        if (value !== record.transferId) throw new Error(`a transaction hash of ${record.transferId} belongs to another transfer (${key})`);
      }
    }
    if (record.nonce !== null) await this.state.put([[K.txNonce(record), record.transferId]]);
  }

  private async deposits(chain: string, ids: readonly string[]): Promise<EvmDepositRecord[]> {
    if (!ids.length) return [];
    const found = await this.state.get(ids.map((id) => K.dep(chain, id)));
    return [...found.values()].map(decodeDeposit);
  }
}

function depositIndexes(d: EvmDepositRecord): [string, Json][] {
  const out: [string, Json][] = [[K.depBlock(d), d.transferId]];
  if (d.revertedAt !== null) out.push([K.depReverted(d), d.transferId]);
  if (unswept(d)) out.push([K.depUnswept(d), d.transferId]);
  return out;
}

const byBlock = (a: EvmDepositRecord, b: EvmDepositRecord) => a.blockNumber - b.blockNumber || compareStateKeys(a.transferId, b.transferId);

function encodeTransaction(r: EvmTransactionRecord): Json {
  return { ...r, amount: r.amount.toString(), gasCost: r.gasCost === null ? null : r.gasCost.toString() };
}

function decodeTransaction(value: Json): EvmTransactionRecord {
  const v = value as Omit<EvmTransactionRecord, "amount" | "gasCost"> & { amount: string; gasCost: string | null };
  return { ...v, amount: BigInt(v.amount), gasCost: v.gasCost === null ? null : BigInt(v.gasCost) };
}

function encodeDeposit(d: EvmDepositRecord): Json {
  return { ...d, amount: d.amount.toString() };
}

function decodeDeposit(value: Json): EvmDepositRecord {
  const v = value as Omit<EvmDepositRecord, "amount"> & { amount: string };
  return { ...v, amount: BigInt(v.amount) };
}

function encodeSweep(s: EvmSweepRecord): Json {
  return { ...s, amount: s.amount.toString() };
}

function decodeSweep(value: Json): EvmSweepRecord {
  const v = value as Omit<EvmSweepRecord, "amount"> & { amount: string };
  return { ...v, amount: BigInt(v.amount) };
}

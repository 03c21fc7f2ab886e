/**
 * What a chain adapter that keeps state (the EVM adapter) stores about its chains, in the
 * engine's storage so every engine process on one database shares it: counters (nonces, the
 * next deposit-address index), the transactions it signed (saved before they are sent, so a
 * retry or a crash re-sends the same bytes), the deposit addresses it derived, how far it has
 * read each chain (the scan tip and recent block hashes, to find reorganisations), the deposits
 * it saw, and the sweeps that move them to the hot wallet. The engine itself never reads it.
 *
 * Reached as `tx.chainState` inside `StorageAdapter.transaction`; every write commits or rolls
 * back with the transaction. Records are plain data (amounts `bigint`, times epoch ms, block
 * numbers and nonces safe integers); adapters store them as given and never interpret them.
 */
export interface ChainStateStore {
  /**
   * Takes the next number of a counter: returns the larger of its stored next value and
   * `floor` (a missing counter starts at `floor`) and stores that plus one. The counter stays
   * locked until the transaction ends, so concurrent takers wait and never get the same
   * number, and a number taken in a transaction that rolls back is taken again.
   */
  takeSequence(scope: string, floor: number): Promise<number>;

  /** One transaction the adapter made, by the id the engine (or the adapter) chose for it. */
  getTransaction(chain: string, transferId: string, options?: { lock?: boolean }): Promise<ChainTransactionRecord | null>;
  /** The transaction one of whose attempts has this hash, or null. */
  findTransactionByHash(chain: string, txHash: string): Promise<ChainTransactionRecord | null>;
  /**
   * Inserts a record unless (chain, transferId) exists; returns whether it did. A concurrent
   * insert of the same id waits for the other transaction, then finds it and inserts nothing.
   * Each attempt's hash becomes findable.
   */
  insertTransaction(record: ChainTransactionRecord): Promise<boolean>;
  /** Replaces the record of (chain, transferId) (a new attempt, an outcome); new hashes become findable. */
  putTransaction(record: ChainTransactionRecord): Promise<void>;
  /** Transactions of `chain` in status `signed` (sent, not yet final or failed), oldest first. */
  listOpenTransactions(chain: string, limit: number): Promise<ChainTransactionRecord[]>;
  /**
   * Transactions of `chain` sent by `from` with a nonce of at least `minNonce`, by nonce (the
   * ones the chain has not counted yet: after a reorganisation they must be sent again).
   */
  listTransactionsFrom(chain: string, from: string, minNonce: number): Promise<ChainTransactionRecord[]>;

  /** The address derived for `key` in `wallet`, or null. */
  getAddress(wallet: string, key: string): Promise<ChainAddressRecord | null>;
  /** Records a derived address; a key or an index already recorded in the wallet throws. */
  insertAddress(record: ChainAddressRecord): Promise<void>;
  /** The addresses of the wallet with an index above `afterIndex` (all: 0), by index. */
  listAddresses(wallet: string, afterIndex?: number): Promise<ChainAddressRecord[]>;

  /** The last block the adapter has read on `chain`, or null before the first read. */
  getScanTip(chain: string): Promise<ChainBlockRecord | null>;
  /**
   * Moves the scan tip to `next` if it is still `expected` (null: none yet); returns false and
   * changes nothing otherwise (another process read the chain meanwhile). Atomic under
   * concurrent callers.
   */
  moveScanTip(chain: string, expected: ChainBlockRecord | null, next: ChainBlockRecord): Promise<boolean>;
  /** Saved block hashes of `chain`, lowest number first. */
  listBlocks(chain: string): Promise<ChainBlockRecord[]>;
  /** Saves block hashes (a number saved before is replaced). */
  putBlocks(blocks: ChainBlockRecord[]): Promise<void>;
  /** Deletes saved blocks numbered `from` and up, and those below `below`; returns how many. */
  deleteBlocks(chain: string, range: { from?: number; below?: number }): Promise<number>;

  /** Records deposits; one whose (chain, transferId) exists already is skipped. Returns how many were new. */
  insertDeposits(records: ChainDepositRecord[]): Promise<number>;
  /** Marks the deposits of `chain` in blocks `fromBlock` and up, not yet reverted, reverted at height `at`. Returns them. */
  revertDeposits(chain: string, fromBlock: number, at: number): Promise<ChainDepositRecord[]>;
  /**
   * Deposits of `chain` that match any given part of the filter: not reverted and in a block
   * `minBlock` or higher; reverted at `revertedSince` or later; not reverted, not swept and in
   * a block `unsweptTo` or lower. Lowest block first.
   */
  listDeposits(chain: string, filter: { minBlock?: number; revertedSince?: number; unsweptTo?: number }): Promise<ChainDepositRecord[]>;
  /** Assigns deposits to a sweep (null: back to unswept). */
  setDepositSweep(chain: string, transferIds: readonly string[], sweep: string | null): Promise<void>;

  /** Records a new sweep (its id is new). */
  insertSweep(record: ChainSweepRecord): Promise<void>;
  /** Replaces a sweep's record. */
  updateSweep(record: ChainSweepRecord): Promise<void>;
  /** Sweeps of `chain` not yet `done` or `abandoned`, oldest first. */
  listOpenSweeps(chain: string): Promise<ChainSweepRecord[]>;
}

/** One signed transaction of a transaction the adapter made (a fee replacement adds another). */
export interface ChainTransactionAttempt {
  txHash: string;
  /** The signed, serialized transaction, exactly as sent. */
  raw: string;
  /** Fee caps it was signed with (decimal integers, the chain's smallest unit). */
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  signedAt: number;
}

export interface ChainTransactionRecord {
  chain: string;
  /** Engine-chosen (a leg id) or adapter-chosen (a sweep's step); unique per chain. */
  transferId: string;
  /** What it does: `payout`, `top_up`, `sweep`. */
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
  attempts: ChainTransactionAttempt[];
  /** The attempt that was mined, once one was. */
  minedHash: string | null;
  /** What the sender paid for gas once mined (smallest unit of the chain's gas asset): the operator's cost. */
  gasCost: bigint | null;
  created: number;
  updated: number;
}

export interface ChainAddressRecord {
  /** Whose keys: one wallet (a signer) serves every chain of a family. */
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

export interface ChainBlockRecord {
  chain: string;
  number: number;
  hash: string;
}

export interface ChainDepositRecord {
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

export interface ChainSweepRecord {
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

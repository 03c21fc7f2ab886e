/**
 * What the simulated chains (test mode, `npm start`) keep in the engine's storage, so a restart
 * loses no deposit a test helper acknowledged and no transfer the engine was told was sent, and
 * every engine process on one database sees one simulated world: the transfers (outbound ones
 * the engine broadcast, inbound deposits the test helpers paid) and counters (blocks mined on
 * demand, hot-wallet liquidity spent). The engine itself never reads it.
 *
 * Reached as `tx.simulatedChains` inside `StorageAdapter.transaction`; every write commits or
 * rolls back with the transaction. Records are plain data (amounts `bigint`, heights safe
 * integers); adapters store them as given and never interpret them.
 */
export interface SimulatedChainStore {
  /**
   * Adds `delta` (may be negative or zero) to a counter (a missing one starts at 0) and returns
   * the new value. The counter stays locked until the transaction ends, so concurrent callers
   * wait and each sees the other's addition.
   */
  addToCounter(scope: string, delta: bigint): Promise<bigint>;
  /** A counter's value (0 when missing), without locking it. */
  getCounter(scope: string): Promise<bigint>;

  /**
   * Records each transfer unless (chain, transferId) exists; returns the stored records in the
   * order given (the existing one where there was one, unchanged; the first of repeats within
   * the call). A concurrent insert of the same id waits for the other transaction, then returns
   * its record. One call for many transfers, so a chunk of broadcasts costs one write.
   */
  insertTransfers(records: readonly SimulatedTransferRecord[]): Promise<SimulatedTransferRecord[]>;
  /** The transfers of `chain` with these ids, by transfer id (missing ids are absent). */
  getTransfers(chain: string, transferIds: readonly string[]): Promise<Map<string, SimulatedTransferRecord>>;
  /** The transfers of `chain` with these hashes, by hash (unknown hashes are absent). */
  findTransfersByHash(chain: string, txHashes: readonly string[]): Promise<Map<string, SimulatedTransferRecord>>;
  /**
   * Inbound transfers of `chain` whose story was not over at a height: not dropped and included
   * at `includedFrom` or later, or dropped at `droppedSince` or later. Lowest inclusion height
   * first, then by transfer id.
   */
  listInbound(chain: string, filter: { includedFrom: number; droppedSince: number }): Promise<SimulatedTransferRecord[]>;
  /**
   * A reorganisation of `chain` replacing the blocks `from` to `to` (inclusive): outbound
   * transfers included there move to height `moveTo`; inbound ones there not yet dropped are
   * dropped at height `droppedAt`. Returns how many transfers changed.
   */
  reorganize(chain: string, range: { from: number; to: number }, moveTo: number, droppedAt: number): Promise<number>;
}

export interface SimulatedTransferRecord {
  chain: string;
  /** The engine's id for an outbound transfer (a leg id), the simulation's for a deposit. */
  transferId: string;
  direction: "out" | "in";
  asset: string;
  /** Where it went: the recipient (out) or the engine's deposit address (in). */
  address: string;
  amount: bigint;
  /** Null for a refused broadcast (nothing was sent). */
  txHash: string | null;
  /** Height of the block that includes it (null when refused). */
  includedAt: number | null;
  /** Inbound: height at which a reorganisation removed it, or null. */
  droppedAt: number | null;
  /** Outbound: why the broadcast was refused, or null. */
  refused: string | null;
  /** Outbound: why it fails once mined (reverted), or null. */
  failure: string | null;
  created: number;
}

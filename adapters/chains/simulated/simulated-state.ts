import { compareStateKeys, decodeCounter, encodeSortableUint, type AdapterStateTx, type Json } from "../../../src/ports/public";

/** The namespace the simulated chains keep their world in (`StorageAdapter.adapterState`). */
export const SIMULATED_NAMESPACE = "simulated-chains";

/**
 * One transfer of the simulated world: outbound ones the engine broadcast (a refusal too), inbound
 * deposits the test helpers paid. Kept so a restart loses none and every engine process on one
 * database sees one world.
 */
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

/*
 * The keyspace (namespace `simulated-chains`; `<h>` is a height as `encodeSortableUint`). The
 * PostgreSQL migration 13 wrote this layout from the tables it replaced: change it only with a
 * step that rewrites what is stored.
 *
 *   counter/<scope>                   counters (`increment`): spent:<chain>:<asset>, blocks:<chain>,
 *                                     reorgs:<chain>, deposits:<chain>
 *   transfer/<chain>/<transferId>     a transfer (amount as a decimal string)
 *   hash/<chain>/<txHash>             {transferId, includedAt, failure}: what a status needs, in one
 *                                     read (a reorganisation rewrites it with the record)
 *   out/<chain>/<h>/<transferId>      outbound transfers by inclusion height (what a reorganisation moves)
 *   in/<chain>/<h>/<transferId>       deposits by inclusion height
 *   dropped/<chain>/<h>/<transferId>  deposits by the height a reorganisation removed them at
 */
const counterKey = (scope: string) => `counter/${scope}`;
const transferKey = (chain: string, transferId: string) => `transfer/${chain}/${transferId}`;
const hashKey = (chain: string, txHash: string) => `hash/${chain}/${txHash}`;
const heightPrefix = (direction: "out" | "in", chain: string) => `${direction}/${chain}/`;
const heightKey = (direction: "out" | "in", chain: string, height: number, transferId: string) =>
  `${heightPrefix(direction, chain)}${encodeSortableUint(height)}/${transferId}`;
const droppedPrefix = (chain: string) => `dropped/${chain}/`;
const droppedKey = (chain: string, height: number, transferId: string) => `${droppedPrefix(chain)}${encodeSortableUint(height)}/${transferId}`;
/** Heights as key bounds (a bound below zero is zero: no height is negative). */
const height = (n: number) => encodeSortableUint(Math.max(0, n));

/**
 * What the simulated chains keep, on one transaction of their namespace: typed records over the
 * keys above, every index kept in the same transaction as its record. Calls take many keys at
 * once, so a chunk of broadcasts is a handful of statements, not a few per transfer.
 */
export class SimulatedState {
  constructor(private readonly state: AdapterStateTx) {}

  /** Adds to counters, locking them until the transaction ends (by zero: only locks); the new values. */
  async addToCounters(deltas: Iterable<readonly [string, bigint]>): Promise<Map<string, bigint>> {
    const byKey = await this.state.increment([...deltas].map(([scope, delta]) => [counterKey(scope), delta] as const));
    return new Map([...byKey].map(([key, value]) => [key.slice("counter/".length), value]));
  }

  /** Sets counters this transaction holds locked (`addToCounters`) to values it computed. */
  async setCounters(values: ReadonlyMap<string, bigint>): Promise<void> {
    await this.state.put([...values].map(([scope, value]) => [counterKey(scope), value.toString()] as const));
  }

  /**
   * Counters (0 when missing, without locking them) and transfers by (chain, id), in one read:
   * transfers answer under `${chain}\u0000${transferId}`.
   */
  async read(
    scopes: readonly string[],
    transfers: readonly { chain: string; transferId: string }[] = [],
  ): Promise<{ counters: Map<string, bigint>; transfers: Map<string, SimulatedTransferRecord> }> {
    const keys = [...scopes.map(counterKey), ...transfers.map((t) => transferKey(t.chain, t.transferId))];
    const found = keys.length ? await this.state.get(keys) : new Map<string, Json>();
    return {
      counters: new Map(scopes.map((scope) => [scope, decodeCounter(found.get(counterKey(scope)))])),
      transfers: new Map<string, SimulatedTransferRecord>(
        transfers.flatMap((t) => {
          const value = found.get(transferKey(t.chain, t.transferId));
          return value === undefined ? [] : [[`${t.chain}\u0000${t.transferId}`, decodeTransfer(value)] as const];
        }),
      ),
    };
  }

  /**
   * Records each transfer unless (chain, transferId) exists; returns the stored records in the
   * order given (the existing one where there was one, unchanged). Indexes follow the records
   * this call inserted.
   */
  async insertTransfers(records: readonly SimulatedTransferRecord[]): Promise<SimulatedTransferRecord[]> {
    if (!records.length) return [];
    const answers = await this.state.insert(records.map((r) => [transferKey(r.chain, r.transferId), encodeTransfer(r)] as const));
    const indexes: [string, Json][] = [];
    const stored = records.map((r) => {
      const answer = answers.get(transferKey(r.chain, r.transferId))!;
      if (!answer.inserted) return decodeTransfer(answer.value);
      indexes.push(...indexEntries(r));
      return r;
    });
    if (indexes.length) await this.state.put(indexes);
    return stored;
  }

  /**
   * Records transfers whose ids this transaction knows to be new (derived from a counter it
   * holds locked), with their indexes: writes only, sent with the commit.
   */
  async putTransfers(records: readonly SimulatedTransferRecord[]): Promise<void> {
    await this.state.put(records.flatMap((r) => [[transferKey(r.chain, r.transferId), encodeTransfer(r)] as [string, Json], ...indexEntries(r)]));
  }

  /** What the status of each sent transfer of `chain` with these hashes depends on, by hash (unknown hashes are absent). */
  async statusByHash(chain: string, txHashes: readonly string[]): Promise<Map<string, SentStatus>> {
    if (!txHashes.length) return new Map();
    const found = await this.state.get(txHashes.map((h) => hashKey(chain, h)));
    const out = new Map<string, SentStatus>();
    for (const hash of txHashes) {
      const entry = found.get(hashKey(chain, hash)) as SentStatus | undefined;
      if (entry) out.set(hash, entry);
    }
    return out;
  }

  /**
   * Deposits of `chain` whose story was not over at a height: not dropped and included at
   * `includedFrom` or later, or dropped at `droppedSince` or later. Lowest inclusion height
   * first, then by transfer id.
   */
  async listInbound(chain: string, filter: { includedFrom: number; droppedSince: number }): Promise<SimulatedTransferRecord[]> {
    const included = await this.state.list({ prefix: heightPrefix("in", chain), from: heightPrefix("in", chain) + height(filter.includedFrom) });
    const dropped = await this.state.list({ prefix: droppedPrefix(chain), from: droppedPrefix(chain) + height(filter.droppedSince) });
    const ids = new Set([...included, ...dropped].map((e) => e.value as string));
    const records = await this.transfers(chain, [...ids]);
    return [...records.values()]
      .filter(
        (r) =>
          (r.droppedAt === null && r.includedAt !== null && r.includedAt >= filter.includedFrom) ||
          (r.droppedAt !== null && r.droppedAt >= filter.droppedSince),
      )
      .sort((a, b) => (a.includedAt ?? 0) - (b.includedAt ?? 0) || compareStateKeys(a.transferId, b.transferId));
  }

  /**
   * A reorganisation of `chain` replacing the blocks `from` to `to` (inclusive): outbound
   * transfers included there move to height `moveTo`; deposits there not yet dropped are dropped
   * at height `droppedAt`. Returns how many transfers changed.
   */
  async reorganize(chain: string, range: { from: number; to: number }, moveTo: number, droppedAt: number): Promise<number> {
    if (range.to < range.from) return 0;
    const within = (direction: "out" | "in") =>
      this.state.list({ from: heightPrefix(direction, chain) + height(range.from), to: heightPrefix(direction, chain) + height(range.to + 1) });
    const out = await within("out");
    const inbound = await within("in");
    const records = await this.transfers(chain, [...out, ...inbound].map((e) => e.value as string));
    const writes: [string, Json][] = [];
    const removed: string[] = [];
    let changed = 0;
    for (const r of records.values()) {
      if (r.direction === "out") {
        removed.push(heightKey("out", chain, r.includedAt!, r.transferId));
        const moved = { ...r, includedAt: moveTo };
        writes.push([transferKey(chain, r.transferId), encodeTransfer(moved)], ...indexEntries(moved));
      } else if (r.droppedAt === null) {
        writes.push([transferKey(chain, r.transferId), encodeTransfer({ ...r, droppedAt })]);
        writes.push([droppedKey(chain, droppedAt, r.transferId), r.transferId]);
      } else {
        continue;
      }
      changed++;
    }
    await this.state.delete(removed);
    await this.state.put(writes);
    return changed;
  }

  private async transfers(chain: string, ids: readonly string[]): Promise<Map<string, SimulatedTransferRecord>> {
    if (!ids.length) return new Map();
    const found = await this.state.get(ids.map((id) => transferKey(chain, id)));
    return new Map([...found.values()].map((value) => {
      const record = decodeTransfer(value);
      return [record.transferId, record] as const;
    }));
  }
}

/** What a sent transfer's status depends on (`statusByHash`). */
export interface SentStatus {
  transferId: string;
  includedAt: number | null;
  failure: string | null;
}

/** The index keys of a transfer as recorded. */
function indexEntries(r: SimulatedTransferRecord): [string, Json][] {
  const out: [string, Json][] = [];
  if (r.txHash !== null) out.push([hashKey(r.chain, r.txHash), { transferId: r.transferId, includedAt: r.includedAt, failure: r.failure } satisfies SentStatus]);
  if (r.includedAt !== null) out.push([heightKey(r.direction, r.chain, r.includedAt, r.transferId), r.transferId]);
  if (r.droppedAt !== null) out.push([droppedKey(r.chain, r.droppedAt, r.transferId), r.transferId]);
  return out;
}

function encodeTransfer(r: SimulatedTransferRecord): Json {
  return { ...r, amount: r.amount.toString() };
}

function decodeTransfer(value: Json): SimulatedTransferRecord {
  const v = value as Omit<SimulatedTransferRecord, "amount"> & { amount: string };
  return { ...v, amount: BigInt(v.amount) };
}

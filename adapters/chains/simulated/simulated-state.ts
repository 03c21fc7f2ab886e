import { compareStateKeys, decodeCounter, encodeSortableUint, type AdapterStateTx, type Json } from "../../../src/ports/public";

/** The namespace the simulated chains keep their world in (`StorageAdapter.adapterState`). */
export const SIMULATED_NAMESPACE = "simulated-chains";

/**
 * What a broadcast decided, kept under the transfer's id so a repeated call answers the same: the
 * hash it was sent under and whether it fails once mined, or why it was refused.
 */
export type SentOutcome = { txHash: string; failure: string | null } | { refused: string };

/** A deposit a test helper paid: kept so a restart loses none and every engine process sees it. */
export interface SimulatedDepositRecord {
  chain: string;
  /** The simulation's id for it. */
  transferId: string;
  asset: string;
  /** The engine's deposit address it was paid to. */
  address: string;
  amount: bigint;
  txHash: string;
  /** Height of the block that includes it. */
  includedAt: number;
  /** Height at which a reorganisation removed it, or null. */
  droppedAt: number | null;
  created: number;
  /**
   * Whose view it is in (a test account: `pay` with an owner), and the blocks mined in that
   * view when it was paid; absent for deposits of the whole chain (and those kept before).
   */
  owner?: string;
  ownerBlocks?: number;
}

/**
 * Money moved into (positive) or out of (negative) the engine's addresses outside the engine: a
 * top-up of the hot wallet, a payout sent with the keys elsewhere, a deposit the chain never
 * reported (`address` a deposit address). What reconciliation must find.
 */
export interface OutsideTransfer {
  chain: string;
  asset: string;
  /** The engine's address it moved money into or out of; null: the hot wallet. */
  address: string | null;
  amount: bigint;
  txHash: string;
  at: number;
}

/** What a sent transfer's status depends on beyond its hash (`statusByHash`). */
export interface SentStatus {
  /** Its inclusion height before the reorganisations of the log (`ReorgEntry`). */
  includedAt: number;
  failure: string | null;
}

/** One reorganisation: sent transfers included from `from` to `to` (inclusive) moved to `moveTo`. */
export interface ReorgEntry {
  from: number;
  to: number;
  moveTo: number;
}

/*
 * The keyspace (namespace `simulated-chains`; `<h>` and `<n>` are numbers as
 * `encodeSortableUint`). A sent transfer's hash starts with its inclusion height, so its status
 * needs no record of its own unless it fails: the simulation writes one key per broadcast. The
 * PostgreSQL migration 13 wrote this layout from the tables it replaced: change it only with a
 * step that rewrites what is stored.
 *
 *   counter/<scope>                           counters (`increment`): spent:<chain>:<asset>, blocks:<chain>,
 *                                             reorgs:<chain>, deposits:<chain>
 *   sent/<chain>/<transferId>                 a broadcast's outcome (`SentOutcome`)
 *   hash/<chain>/<txHash>                     `SentStatus` of a sent transfer its hash does not tell
 *                                             (one that fails; one sent before migration 13)
 *   sent-at/<chain>/<h>                       counter: sent transfers included at height h
 *   reorg/<chain>/<n>                         the n-th reorganisation (`ReorgEntry`)
 *   deposit/<chain>/<h>/<transferId>         a deposit by inclusion height (amount as a decimal string):
 *                                             what is read is a range of heights, never one id
 *   deposit-dropped/<chain>/<h>/<transferId>  → its inclusion height: deposits by the height a
 *                                             reorganisation removed them at
 *   paid/<chain>/<owner>/<key>                → `{includedAt, transferId}`: the deposit a keyed `pay` made
 *                                             (a retry with the key finds it and pays nothing)
 *   outside/<chain>/<n>                       `OutsideTransfer`: money moved into or out of the engine's
 *                                             addresses by no one the engine knows (`transferOutside`)
 *
 * An owner's view adds the counter blocks:<chain>@<owner> (blocks mined in that view only).
 */
const counterKey = (scope: string) => `counter/${scope}`;
const sentKey = (chain: string, transferId: string) => `sent/${chain}/${transferId}`;
const hashKey = (chain: string, txHash: string) => `hash/${chain}/${txHash}`;
const sentAtPrefix = (chain: string) => `sent-at/${chain}/`;
const reorgPrefix = (chain: string) => `reorg/${chain}/`;
const depositPrefix = (chain: string) => `deposit/${chain}/`;
const depositKey = (chain: string, includedAt: number, transferId: string) => `${depositPrefix(chain)}${height(includedAt)}/${transferId}`;
const depositDroppedPrefix = (chain: string) => `deposit-dropped/${chain}/`;
const paidKey = (chain: string, owner: string, key: string) => `paid/${chain}/${owner}/${key}`;
const outsidePrefix = (chain: string) => `outside/${chain}/`;
/** Heights as key parts (a bound below zero is zero: no height is negative). */
const height = (n: number) => encodeSortableUint(Math.max(0, n));

/** A sent transfer's height after the reorganisations of `log` (in order) moved it. */
export function heightAfter(includedAt: number, log: readonly ReorgEntry[]): number {
  let h = includedAt;
  for (const r of log) if (h >= r.from && h <= r.to) h = r.moveTo;
  return h;
}

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
   * Counters (0 when missing, without locking them) and earlier outcomes of broadcasts by (chain,
   * id), in one read: outcomes answer under `${chain}\u0000${transferId}`.
   */
  async read(
    scopes: readonly string[],
    sent: readonly { chain: string; transferId: string }[] = [],
  ): Promise<{ counters: Map<string, bigint>; sent: Map<string, SentOutcome> }> {
    const keys = [...scopes.map(counterKey), ...sent.map((t) => sentKey(t.chain, t.transferId))];
    const found = keys.length ? await this.state.get(keys) : new Map<string, Json>();
    const outcomes = new Map<string, SentOutcome>();
    for (const t of sent) {
      const value = found.get(sentKey(t.chain, t.transferId));
      if (value !== undefined) outcomes.set(`${t.chain}\u0000${t.transferId}`, value as SentOutcome);
    }
    return { counters: new Map(scopes.map((scope) => [scope, decodeCounter(found.get(counterKey(scope)))])), sent: outcomes };
  }

  /**
   * Records broadcasts' outcomes unless their (chain, id) has one; answers, in the order given,
   * the outcome stored now (an earlier one where there was one, unchanged). Counts the sends per
   * block of inclusion, and keeps the status of a send that fails (its hash does not tell).
   */
  async insertSent(sends: readonly { chain: string; transferId: string; outcome: SentOutcome; includedAt: number | null }[]): Promise<SentOutcome[]> {
    if (!sends.length) return [];
    const answers = await this.state.insert(sends.map((s) => [sentKey(s.chain, s.transferId), s.outcome as Json] as const));
    const perBlock = new Map<string, bigint>();
    const failing: [string, Json][] = [];
    const stored = sends.map((s) => {
      const answer = answers.get(sentKey(s.chain, s.transferId))!;
      if (!answer.inserted) return answer.value as SentOutcome;
      if ("txHash" in s.outcome && s.includedAt !== null) {
        const key = sentAtPrefix(s.chain) + height(s.includedAt);
        perBlock.set(key, (perBlock.get(key) ?? 0n) + 1n);
        if (s.outcome.failure !== null) {
          failing.push([hashKey(s.chain, s.outcome.txHash), { includedAt: s.includedAt, failure: s.outcome.failure } satisfies SentStatus]);
        }
      }
      return s.outcome;
    });
    if (perBlock.size) await this.state.increment(perBlock);
    if (failing.length) await this.state.put(failing);
    return stored;
  }

  /** What the status of sent transfers of `chain` depends on beyond their hashes, by hash (absent: the hash tells). */
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

  /** The reorganisations of `chain`, oldest first. */
  async reorgLog(chain: string): Promise<ReorgEntry[]> {
    return (await this.state.list({ prefix: reorgPrefix(chain) })).map((e) => e.value as ReorgEntry);
  }

  /** Records deposits (their ids are new: derived from a counter this transaction holds). */
  async putDeposits(records: readonly SimulatedDepositRecord[]): Promise<void> {
    await this.state.put(records.flatMap(depositEntries));
  }

  /**
   * Records a keyed payment's deposit unless the key has one; answers the deposit the key made
   * first (null: this one is recorded now, with its index).
   */
  async putKeyedDeposit(record: SimulatedDepositRecord, key: string): Promise<SimulatedDepositRecord | null> {
    const ref = paidKey(record.chain, record.owner ?? "", key);
    const answer = (await this.state.insert([[ref, { includedAt: record.includedAt, transferId: record.transferId }]])).get(ref)!;
    if (answer.inserted) {
      await this.putDeposits([record]);
      return null;
    }
    const first = answer.value as { includedAt: number; transferId: string };
    const found = await this.state.get([depositKey(record.chain, first.includedAt, first.transferId)]);
    return decodeDeposit([...found.values()][0]!);
  }

  /** Deposits of `chain` included at `from` or later (dropped or not), lowest height first. */
  async depositsFrom(chain: string, from: number): Promise<SimulatedDepositRecord[]> {
    return (await this.state.list({ prefix: depositPrefix(chain), from: depositPrefix(chain) + height(from) })).map((e) => decodeDeposit(e.value));
  }

  /**
   * Deposits of `chain` whose story was not over at a height: not dropped and included at
   * `includedFrom` or later, or dropped at `droppedSince` or later. Lowest inclusion height
   * first, then by transfer id.
   */
  async listDeposits(chain: string, filter: { includedFrom: number; droppedSince: number }): Promise<SimulatedDepositRecord[]> {
    const included = (await this.state.list({ prefix: depositPrefix(chain), from: depositPrefix(chain) + height(filter.includedFrom) })).map((e) =>
      decodeDeposit(e.value),
    );
    // dropped since, but included before the range above
    const dropped = (await this.state.list({ prefix: depositDroppedPrefix(chain), from: depositDroppedPrefix(chain) + height(filter.droppedSince) }))
      .map((e) => ({ includedAt: e.value as number, transferId: e.key.slice(e.key.lastIndexOf("/") + 1) }))
      .filter((d) => d.includedAt < filter.includedFrom);
    const earlier = dropped.length
      ? [...(await this.state.get(dropped.map((d) => depositKey(chain, d.includedAt, d.transferId)))).values()].map(decodeDeposit)
      : [];
    return [...included, ...earlier]
      .filter((r) => (r.droppedAt === null && r.includedAt >= filter.includedFrom) || (r.droppedAt !== null && r.droppedAt >= filter.droppedSince))
      .sort((a, b) => a.includedAt - b.includedAt || compareStateKeys(a.transferId, b.transferId));
  }

  /**
   * A reorganisation of `chain` replacing the blocks `from` to `to` (inclusive), the `seq`-th of
   * the chain: sent transfers included there move to height `moveTo` (logged, so each status
   * follows; their counts per block move with them); deposits there not yet dropped are dropped
   * at height `droppedAt`. Returns how many transfers the blocks held (sent and received).
   */
  async reorganize(chain: string, range: { from: number; to: number }, moveTo: number, droppedAt: number, seq: bigint): Promise<number> {
    if (range.to < range.from) return 0;
    const sentRange = { from: sentAtPrefix(chain) + height(range.from), to: sentAtPrefix(chain) + height(range.to + 1) };
    const moved = (await this.state.list(sentRange)).reduce((sum, e) => sum + decodeCounter(e.value), 0n);
    if (moved > 0n) {
      await this.state.deleteRange(sentRange);
      await this.state.increment([[sentAtPrefix(chain) + height(moveTo), moved]]);
    }
    const within = await this.state.list({ from: depositPrefix(chain) + height(range.from), to: depositPrefix(chain) + height(range.to + 1) });
    const dropped = within
      .map((e) => decodeDeposit(e.value))
      .filter((r) => r.droppedAt === null)
      .map((r) => ({ ...r, droppedAt }));
    await this.state.put([
      [reorgPrefix(chain) + encodeSortableUint(seq), { from: range.from, to: range.to, moveTo } satisfies ReorgEntry],
      ...dropped.flatMap(depositEntries),
    ]);
    return Number(moved) + dropped.length;
  }

  /** Records an outside transfer as the `n`-th of its chain. */
  async putOutside(t: OutsideTransfer, n: bigint): Promise<void> {
    await this.state.put([[outsidePrefix(t.chain) + encodeSortableUint(n), { ...t, amount: t.amount.toString() }]]);
  }

  /** The outside transfers of `chain`, oldest first. */
  async listOutside(chain: string): Promise<OutsideTransfer[]> {
    return (await this.state.list({ prefix: outsidePrefix(chain) })).map((e) => {
      const v = e.value as Omit<OutsideTransfer, "amount"> & { amount: string };
      return { ...v, amount: BigInt(v.amount) };
    });
  }

  /** Marks deposits dropped (a reorganisation of one owner's view: nothing else moves). */
  async dropDeposits(records: readonly SimulatedDepositRecord[], droppedAt: number): Promise<void> {
    if (records.length) await this.state.put(records.flatMap((r) => depositEntries({ ...r, droppedAt })));
  }
}

/** A deposit's record, and its entry by the height it was dropped at. */
function depositEntries(r: SimulatedDepositRecord): [string, Json][] {
  const out: [string, Json][] = [[depositKey(r.chain, r.includedAt, r.transferId), encodeDeposit(r)]];
  if (r.droppedAt !== null) out.push([`${depositDroppedPrefix(r.chain)}${height(r.droppedAt)}/${r.transferId}`, r.includedAt]);
  return out;
}

function encodeDeposit(r: SimulatedDepositRecord): Json {
  return { ...r, amount: r.amount.toString() };
}

function decodeDeposit(value: Json): SimulatedDepositRecord {
  const v = value as Omit<SimulatedDepositRecord, "amount"> & { amount: string };
  return { ...v, amount: BigInt(v.amount) };
}

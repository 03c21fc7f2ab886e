import { createHash } from "node:crypto";
import { base58, bech32 } from "@scure/base";
import {
  toChecksumAddress,
  parseAmount,
  AssetRegistry,
  type ChainFamily,
  type BroadcastOutcome,
  type ChainAdapter,
  type ChainHoldings,
  type ChainInfo,
  type HoldingsRequest,
  type ChainObservation,
  type ChainSimulationControl,
  type FeeSchedule,
  type InboundTransfer,
  type OutboundTransfer,
  type TransferStatus,
  type AdapterStateStore,
  type Clock,
  type StorageAdapter,
} from "../../../src/ports/public";
import { MemoryStorage } from "../../memory/memory-storage";
import { DEFAULT_SIMULATED_CHAINS, type SimulatedChainConfig } from "./defaults";
import { failsOnChain } from "./failing-addresses";
import {
  heightAfter,
  SIMULATED_NAMESPACE,
  SimulatedState,
  type OutsideTransfer,
  type ReorgEntry,
  type SentOutcome,
  type SimulatedDepositRecord,
} from "./simulated-state";

export interface SimulatedChainsOptions {
  clock: Clock;
  /** Decides failures and hashes; the same seed gives the same world. Default `payrail`. */
  seed?: string;
  /** Per chain, settings that replace the defaults of `DEFAULT_SIMULATED_CHAINS`. */
  chains?: Record<string, Partial<SimulatedChainConfig>>;
  assets?: AssetRegistry;
  /**
   * Where the simulated world is kept (its adapter state, namespace `simulated-chains`): the
   * engine's storage, so a restart loses no deposit or transfer and every engine process on the
   * database sees one world (`npm start` passes it). Default: a memory storage of its own, gone
   * with the process.
   */
  storage?: StorageAdapter;
}

/** Heights count blocks since this moment, so they are large and the same in every run. */
const GENESIS = Date.UTC(2020, 0, 1);

/**
 * Simulated chains, deterministic under a seed. Time drives them: a chain's height is the number
 * of its blocks since 2020 on the engine's clock (plus blocks mined by `advance`), a transfer is
 * included in the block after its broadcast and is final after the chain's confirmations. What
 * every broadcast decided, every deposit, the blocks mined on demand, the reorganisations and the
 * liquidity spent are kept in storage, through the adapter-state seam (`simulated-state.ts` lays
 * them out; a sent transfer's hash carries its height, so a broadcast writes one key). Failures are
 * decided by the seed and the transfer id (`failureRate`), by the recipient's address
 * (`failsOnChain`, docs/decisions.md §10) or forced
 * (`failNext`, this process only). Deposits arrive through `pay` (test helpers) and are reported
 * by `inboundTransfers`; reorganisations move the engine's own transfers of the replaced blocks
 * into the next block and remove the deposits in them.
 */
export class SimulatedChains implements ChainAdapter, ChainSimulationControl {
  readonly name = "simulated";
  readonly testModeOnly = true;
  readonly chains: readonly string[];
  private readonly clock: Clock;
  private readonly seed: string;
  private readonly assets: AssetRegistry;
  private readonly state: AdapterStateStore;
  private readonly config = new Map<string, SimulatedChainConfig>();
  private readonly forcedFailures = new Map<string, ForcedFailure>();
  /** Per asset and chain, the liquidity spent as last read or written (see `liquidity`). */
  private readonly spent = new Map<string, { readAt: number; spent: bigint }>();
  /** Per chain, the counters as last read (see `transferStatus`). */
  private readonly views = new Map<string, ChainView>();
  /** Per chain, its reorganisations as last read, with the count they were read at (see `transferStatusMany`). */
  private readonly logs = new Map<string, { reorgs: bigint; entries: readonly ReorgEntry[] }>();
  /** Sent transfers in flight by chain and hash, tagged with the reorganisation count they were read at. */
  private readonly sentByHash = new Map<string, SentTransfer>();

  /** Where what this simulation sees of its chains goes (`observe`): nowhere until an engine asks. */
  private report: (observation: ChainObservation) => void = () => undefined;

  constructor(options: SimulatedChainsOptions) {
    this.clock = options.clock;
    this.seed = options.seed ?? "payrail";
    this.assets = options.assets ?? AssetRegistry.withDefaults();
    this.state = (options.storage ?? new MemoryStorage()).adapterState(SIMULATED_NAMESPACE);
    const names = new Set([...Object.keys(DEFAULT_SIMULATED_CHAINS), ...Object.keys(options.chains ?? {})]);
    for (const chain of names) {
      if (!this.assets.chain(chain)) throw new TypeError(`simulated chain ${chain} is not in the asset registry`);
      const base = DEFAULT_SIMULATED_CHAINS[chain];
      const override = options.chains?.[chain] ?? {};
      const merged: SimulatedChainConfig = {
        blockTimeMs: override.blockTimeMs ?? base?.blockTimeMs ?? 1_000,
        confirmationsToFinality: override.confirmationsToFinality ?? base?.confirmationsToFinality ?? 3,
        fees: { ...base?.fees, ...override.fees },
        liquidity: { ...base?.liquidity, ...override.liquidity },
        failureRate: override.failureRate ?? base?.failureRate ?? 0,
        failureMode: override.failureMode ?? base?.failureMode ?? "rejected",
      };
      if (!(merged.blockTimeMs > 0) || !Number.isInteger(merged.confirmationsToFinality) || merged.confirmationsToFinality < 1) {
        throw new TypeError(`simulated chain ${chain}: block time and confirmations must be positive`);
      }
      this.config.set(chain, merged);
    }
    this.chains = [...this.config.keys()];
  }

  async describe(chain: string): Promise<ChainInfo> {
    const c = this.chainConfig(chain);
    return { blockTimeMs: c.blockTimeMs, confirmationsToFinality: c.confirmationsToFinality };
  }

  async feeSchedule(chain: string, asset: string): Promise<FeeSchedule> {
    const fee = this.chainConfig(chain).fees[asset];
    if (!fee) return { fixed: 0n, proportionalPpm: 0n, perTransferCap: null };
    return {
      fixed: this.units(asset, fee.fixed, true),
      proportionalPpm: BigInt(fee.proportionalPpm),
      perTransferCap: fee.perTransferCap ? this.units(asset, fee.perTransferCap) : null,
    };
  }

  /** Routing asks for every candidate chain of every payout: read again at most every `VIEW_TTL_MS` (a broadcast checks exactly). */
  async liquidity(chain: string, asset: string): Promise<bigint> {
    const scope = spentScope(chain, asset);
    let known = this.spent.get(scope);
    if (!known || this.clock.now() - known.readAt >= VIEW_TTL_MS) {
      const read = await this.transaction((st) => st.read([scope]));
      known = { readAt: this.clock.now(), spent: read.counters.get(scope)! };
      this.spent.set(scope, known);
    }
    return this.configuredLiquidity(chain, asset) - known.spent;
  }

  async broadcast(transfer: OutboundTransfer): Promise<BroadcastOutcome> {
    return (await this.broadcastMany([transfer]))[0]!;
  }

  /**
   * Sends many transfers in one storage transaction (a chunk of a batch costs one, not one per
   * leg): the liquidity counters of their chains and assets are locked in order, so broadcasts
   * of one asset on one chain still take turns, then each transfer is decided in the order
   * given, as `broadcast` would one after the other.
   */
  async broadcastMany(transfers: readonly OutboundTransfer[]): Promise<BroadcastOutcome[]> {
    if (!transfers.length) return [];
    const scopes = [...new Set(transfers.map((t) => spentScope(t.chain, t.asset)))].sort();
    const chains = [...new Set(transfers.map((t) => t.chain))];
    for (const chain of chains) this.chainConfig(chain);
    const { decided, sent, spent, forcedUsed } = await this.transaction(async (st) => {
      // The liquidity counters are locked first: broadcasts of one asset on one chain take turns.
      const spent = await st.addToCounters(scopes.map((scope) => [scope, 0n] as const));
      const added = new Map<string, bigint>();
      // forced failures are used up as the transfers are decided, and taken off once committed
      const forcedUsed = new Map<string, number>();
      const forcedLeft = (chain: string) => (this.forcedFailures.get(chain)?.count ?? 0) - (forcedUsed.get(chain) ?? 0);
      // the outcomes decided before, and the chains' counters where this process's view is stale: one read
      const known = new Map(chains.map((chain) => [chain, this.freshView(chain)]));
      const stale = chains.filter((chain) => !known.get(chain));
      const read = await st.read(
        stale.flatMap((chain) => [blocksScope(chain), reorgsScope(chain)]),
        transfers.map((t) => ({ chain: t.chain, transferId: t.transferId })),
      );
      const views = new Map<string, ChainView>(chains.map((chain) => [chain, known.get(chain) ?? this.keepView(chain, read.counters)]));
      const previous = read.sent;
      // the transfers decided here (the others were decided before, by an earlier call)
      const fresh: { chain: string; transferId: string; outcome: SentOutcome; includedAt: number | null }[] = [];
      const decided = transfers.map((transfer): SentOutcome => {
        const key = `${transfer.chain}\u0000${transfer.transferId}`;
        const earlier = previous.get(key);
        if (earlier) return earlier;
        const scope = spentScope(transfer.chain, transfer.asset);
        const forced = forcedLeft(transfer.chain) > 0 ? this.forcedFailures.get(transfer.chain)!.mode : null;
        if (forced) forcedUsed.set(transfer.chain, (forcedUsed.get(transfer.chain) ?? 0) + 1);
        const failure = forced ?? this.peekFailure(transfer, this.chainConfig(transfer.chain));
        const left = this.configuredLiquidity(transfer.chain, transfer.asset) - spent.get(scope)!;
        const refusal =
          failure === "rejected" ? "the simulated chain refused the transaction" : left < transfer.amount ? "insufficient hot-wallet liquidity" : null;
        const includedAt = this.tipOf(transfer.chain, views.get(transfer.chain)!.blocks) + 1;
        const outcome: SentOutcome = refusal
          ? { refused: refusal }
          : {
              txHash: this.txHash(transfer.chain, includedAt, `out:${transfer.transferId}`),
              failure: failure === "reverted" ? "execution reverted" : null,
            };
        // A transfer that reverts moves nothing.
        if ("txHash" in outcome && outcome.failure === null) {
          spent.set(scope, spent.get(scope)! + transfer.amount);
          added.set(scope, (added.get(scope) ?? 0n) + transfer.amount);
        }
        previous.set(key, outcome); // a repeat within the call gets the same outcome
        fresh.push({ chain: transfer.chain, transferId: transfer.transferId, outcome, includedAt: refusal ? null : includedAt });
        return outcome;
      });
      const stored = await st.insertSent(fresh);
      // the counters are locked: their new values are known, and written with the commit
      await st.setCounters(new Map([...added.keys()].map((scope) => [scope, spent.get(scope)!])));
      // what transferStatus needs of the transfers sent here, as of this transaction
      const sent = fresh.flatMap((f, i) =>
        stored[i] === f.outcome && "txHash" in f.outcome
          ? [{ key: `${f.chain}\u0000${f.outcome.txHash}`, includedAt: f.includedAt!, failure: f.outcome.failure, reorgs: views.get(f.chain)!.reorgs }]
          : [],
      );
      return { decided, sent, spent, forcedUsed };
    });
    for (const [chain, used] of forcedUsed) {
      const f = this.forcedFailures.get(chain);
      if (f) f.count = Math.max(0, f.count - used);
    }
    for (const [scope, value] of spent) this.spent.set(scope, { readAt: this.clock.now(), spent: value });
    // no storage read for their statuses while nothing reorganises
    for (const { key, ...known } of sent) this.sentByHash.set(key, known);
    return decided.map((outcome) => ("txHash" in outcome ? { txHash: outcome.txHash } : { rejected: outcome.refused }));
  }

  async transferStatus(chain: string, txHash: string): Promise<TransferStatus> {
    return (await this.transferStatusMany(chain, [txHash]))[0]!;
  }

  /**
   * Where sent transfers stand. Polled about every block for every leg in flight, so it reads
   * storage only when this process's view of the chain is older than `VIEW_TTL_MS` or a
   * transfer is not in its cache (then the missing ones in one read): what a transfer's status
   * depends on (its inclusion height and failure, the blocks mined on demand) changes only by
   * `advance` and `reorg`, which renew the view here at once and are seen by other processes
   * within the TTL.
   */
  async transferStatusMany(chain: string, txHashes: readonly string[]): Promise<TransferStatus[]> {
    const config = this.chainConfig(chain);
    const keyOf = (hash: string) => `${chain}\u0000${hash}`;
    // what each transfer's status depends on, as of one view of the chain (kept here: another
    // call may drop a cache entry while this one waits for storage)
    const known = new Map<string, SentTransfer | undefined>(txHashes.map((hash) => [hash, this.sentByHash.get(keyOf(hash))]));
    let view = this.freshView(chain);
    const missing = (v: ChainView | null) => [...known].filter(([, k]) => !v || k?.reorgs !== v.reorgs).map(([hash]) => hash);
    if (!view || missing(view).length) {
      view = await this.transaction(async (st) => {
        const fresh = await this.readView(st, chain);
        const unknown = missing(fresh);
        if (!unknown.length) return fresh;
        const log = await this.reorgLog(st, chain, fresh.reorgs);
        const stored = await st.statusByHash(chain, unknown);
        for (const hash of unknown) {
          const status = stored.get(hash);
          // the height is written into the hash; storage keeps what the hash cannot tell (a
          // failure), and the reorganisations that moved it since
          const entry = {
            includedAt: heightAfter(status?.includedAt ?? this.decodeHeight(chain, hash), log),
            failure: status?.failure ?? null,
            reorgs: fresh.reorgs,
          };
          known.set(hash, entry);
          this.sentByHash.set(keyOf(hash), entry);
        }
        return fresh;
      });
    }
    const tip = this.tipOf(chain, view.blocks);
    return txHashes.map((hash) => {
      const sent = known.get(hash)!;
      if (tip < sent.includedAt) return { confirmations: 0, finality: "pending", failure: null };
      const confirmations = tip - sent.includedAt + 1;
      const finality = confirmations >= config.confirmationsToFinality ? "final" : "included";
      // the engine stops asking about a transfer that is final or failed
      if (finality === "final" || sent.failure !== null) this.sentByHash.delete(keyOf(hash));
      return { confirmations, finality, failure: sent.failure };
    });
  }

  async depositAddress(chain: string, asset: string, intentId: string): Promise<string> {
    this.chainConfig(chain);
    return this.address(this.family(chain), `deposit:${chain}:${asset}:${intentId}`);
  }

  /**
   * Every deposit on `chain` whose story was not over at the cursor's height (not yet final, or
   * removed since), with its state now. The cursor is the height of the previous call.
   */
  async inboundTransfers(chain: string, cursor: string | null): Promise<{ transfers: InboundTransfer[]; cursor: string }> {
    const config = this.chainConfig(chain);
    const since = cursor === null ? 0 : Number(cursor);
    const [records, tip, owners] = await this.transaction(async (st) => {
      const tip = await this.heightIn(st, chain);
      const filter = { includedFrom: since - config.confirmationsToFinality + 1, droppedSince: since };
      const records = await st.listDeposits(chain, filter);
      // the blocks mined in the views of the owners of these deposits
      const scopes = [...new Set(records.flatMap((r) => (r.owner ? [ownerBlocksScope(chain, r.owner)] : [])))];
      return [records, tip, scopes.length ? (await st.read(scopes)).counters : new Map<string, bigint>()] as const;
    });
    const ownerBlocks = (t: SimulatedDepositRecord) => (t.owner ? Number(owners.get(ownerBlocksScope(chain, t.owner)) ?? 0n) : 0);
    this.report({ type: "chain_head", chain, head: tip, lastBlockRead: tip }); // a simulation reads to its tip
    return { transfers: records.map((t) => this.inbound(t, tip, config, ownerBlocks(t))), cursor: String(tip) };
  }

  observe(report: (observation: ChainObservation) => void): void {
    this.report = report;
  }

  /**
   * What the simulated world holds of `asset` on `chain` (`ChainAdapter.holdings`), at its tip: the
   * hot wallet is its configured liquidity less what broadcasts spent, plus what moved outside the
   * engine (`transferOutside`); each address holds the deposits paid to it and not dropped (pending
   * ones too: the engine books them as it learns of them), plus outside transfers to it, which the
   * simulation never reported (more than `expected`). It charges no fees; a broadcast spends at
   * once, so every unbooked transfer it sent without a failure is carried.
   */
  async holdings(request: HoldingsRequest): Promise<ChainHoldings | null> {
    const { chain, asset } = request;
    this.chainConfig(chain);
    if (!this.assets.get(asset)?.chains.includes(chain)) return null;
    return this.transaction(async (st) => {
      const spentKey = spentScope(chain, asset);
      const { counters, sent } = await st.read(
        [spentKey, blocksScope(chain)],
        request.unbooked.map((transferId) => ({ chain, transferId })),
      );
      const tip = this.tipOf(chain, Number(counters.get(blocksScope(chain))!));
      const outside = (await st.listOutside(chain)).filter((t) => t.asset === asset);
      const byAddress = new Map<string, { amount: bigint; expected: bigint }>();
      for (const d of await st.depositsFrom(chain, 0)) {
        if (d.asset !== asset || d.droppedAt !== null) continue;
        const at = byAddress.get(d.address) ?? { amount: 0n, expected: 0n };
        byAddress.set(d.address, { amount: at.amount + d.amount, expected: at.expected + d.amount });
      }
      let hot = this.configuredLiquidity(chain, asset) - counters.get(spentKey)!;
      for (const t of outside) {
        if (t.address === null) {
          hot += t.amount;
          continue;
        }
        const at = byAddress.get(t.address) ?? { amount: 0n, expected: 0n };
        byAddress.set(t.address, { ...at, amount: at.amount + t.amount });
      }
      const carried = request.unbooked.filter((id) => {
        const outcome = sent.get(`${chain}\u0000${id}`);
        return outcome !== undefined && "txHash" in outcome && outcome.failure === null;
      });
      return {
        at: String(tip),
        hotWallet: { address: this.hotWallet(chain), amount: hot },
        depositAddresses: [...byAddress].map(([address, held]) => ({ address, amount: held.amount, expected: held.expected })),
        feesPaid: 0n,
        carried,
        // explained: those since the last balanced reading (`since`), as the port asks
        unknownTransfers: outside
          .filter((t) => request.since === null || t.at > Number(request.since))
          .map((t) => ({ txHash: t.txHash, address: t.address ?? this.hotWallet(chain), amount: t.amount, at: String(t.at) })),
      };
    });
  }

  /** The simulated hot wallet's address on `chain` (a derived one: the simulation keeps no keys). */
  hotWallet(chain: string): string {
    return this.address(this.family(chain), `hot:${chain}`);
  }

  /**
   * Moves `amount` of `asset` into (positive) or out of (negative) the engine's addresses on
   * `chain` by no one the engine knows: the hot wallet (default) or a deposit address, where it is
   * a deposit the chain never reports (as a deposit an adapter failed to read). What
   * reconciliation must find; the simulation and its tests inject drift with it.
   */
  async transferOutside(transfer: { chain: string; asset: string; amount: bigint; address?: string }): Promise<OutsideTransfer> {
    this.chainConfig(transfer.chain);
    if (transfer.amount === 0n) throw new RangeError("an outside transfer moves a non-zero amount");
    return this.transaction(async (st) => {
      const scope = `outside:${transfer.chain}`;
      const counters = await st.addToCounters([
        [scope, 1n],
        [blocksScope(transfer.chain), 0n],
      ]);
      const n = counters.get(scope)!;
      const at = this.tipOf(transfer.chain, Number(counters.get(blocksScope(transfer.chain))!)) + 1;
      const t: OutsideTransfer = {
        chain: transfer.chain,
        asset: transfer.asset,
        address: transfer.address ?? null,
        amount: transfer.amount,
        txHash: this.txHash(transfer.chain, at, `outside:${transfer.chain}:${n}`),
        at,
      };
      await st.putOutside(t, n);
      return t;
    });
  }

  // ---- simulation control (test helpers) ----------------------------------------------------

  async height(chain: string, owner?: string): Promise<number> {
    this.chainConfig(chain);
    return this.transaction(async (st) => (await this.heightIn(st, chain)) + (owner ? await this.ownerBlocksIn(st, chain, owner) : 0));
  }

  /**
   * Mines `blocks` blocks. With an owner, in that owner's view only (a test account's helper):
   * its deposits gain the confirmations; every other transfer stays where the chain's clock has it.
   */
  async advance(chain: string, blocks: number, owner?: string): Promise<void> {
    this.chainConfig(chain);
    if (!Number.isInteger(blocks) || blocks < 0) throw new RangeError("blocks must be a non-negative integer");
    await this.transaction((st) => st.addToCounters([[owner ? ownerBlocksScope(chain, owner) : blocksScope(chain), BigInt(blocks)]]));
    if (!owner) this.views.delete(chain);
  }

  /**
   * Replaces the last `depth` blocks. The engine's own transfers in them go back to the mempool
   * and are included in the next block; deposits in them are gone (the payer's transaction was
   * replaced), so they turn `reverted`.
   */
  async reorg(chain: string, depth: number, owner?: string): Promise<number> {
    this.chainConfig(chain);
    if (!Number.isInteger(depth) || depth < 1) throw new RangeError("depth must be a positive integer");
    if (owner) {
      const gone = await this.reorgView(chain, depth, owner);
      this.report({ type: "chain_reorg", chain, depth });
      return gone;
    }
    const moved = await this.transaction(async (st) => {
      // one reorganisation of a chain at a time, numbered
      const seq = (await st.addToCounters([[reorgsScope(chain), 1n]])).get(reorgsScope(chain))!;
      const tip = await this.heightIn(st, chain);
      return st.reorganize(chain, { from: tip - depth + 1, to: tip }, tip + 1, tip, seq);
    });
    this.views.delete(chain);
    this.report({ type: "chain_reorg", chain, depth });
    return moved;
  }

  /**
   * A reorganisation of one owner's view: its deposits included in the last `depth` blocks it
   * sees are gone. No other owner's deposit and none of the engine's own transfers move.
   */
  private async reorgView(chain: string, depth: number, owner: string): Promise<number> {
    const config = this.chainConfig(chain);
    return this.transaction(async (st) => {
      const scope = ownerBlocksScope(chain, owner);
      const counters = await st.addToCounters([
        [blocksScope(chain), 0n],
        [scope, 0n],
      ]);
      const tip = this.tipOf(chain, Number(counters.get(blocksScope(chain))!));
      const mined = Number(counters.get(scope)!);
      // in the owner's view a deposit is at most `mined` blocks further back than its height says
      const gone = (await st.depositsFrom(chain, tip - depth + 1)).filter((r) => {
        if (r.owner !== owner || r.droppedAt !== null) return false;
        const { confirmations } = this.inbound(r, tip, config, mined);
        return confirmations >= 1 && confirmations <= depth;
      });
      await st.dropDeposits(gone, tip);
      return gone.length;
    });
  }

  async pay(transfer: { chain: string; asset: string; address: string; amount: bigint; owner?: string; key?: string }): Promise<InboundTransfer> {
    const { chain, owner, key, ...output } = transfer;
    return (await this.payOutputs(chain, [output], owner, key))[0]!;
  }

  /**
   * A payer sends one transaction with several outputs (a batched withdrawal, a multisend): each
   * output is a deposit of its own, all under one transaction hash in the next block, the same
   * address possibly more than once and assets mixed. Returns them as `inboundTransfers` will
   * report them, in the order given.
   */
  async payMany(transaction: {
    chain: string;
    outputs: readonly { asset: string; address: string; amount: bigint }[];
    owner?: string;
  }): Promise<InboundTransfer[]> {
    if (transaction.outputs.length === 0) throw new RangeError("a transaction pays at least one output");
    return this.payOutputs(transaction.chain, transaction.outputs, transaction.owner);
  }

  private async payOutputs(
    chain: string,
    outputs: readonly { asset: string; address: string; amount: bigint }[],
    owner: string | undefined,
    key?: string,
  ): Promise<InboundTransfer[]> {
    const config = this.chainConfig(chain);
    // zero is allowed: zero-value transfers exist on chains (address-poisoning spam)
    if (outputs.some((o) => o.amount < 0n)) throw new RangeError("a deposit moves a non-negative amount");
    const [records, tip, mined] = await this.transaction(async (st) => {
      const scope = `deposits:${chain}`;
      const view = owner ? ownerBlocksScope(chain, owner) : null;
      // the deposits' numbers, and the blocks mined on demand (locked with them: one statement)
      const counters = await st.addToCounters([[scope, BigInt(outputs.length)], [blocksScope(chain), 0n], ...(view ? [[view, 0n] as const] : [])]);
      const mined = view ? Number(counters.get(view)!) : 0;
      const first = counters.get(scope)! - BigInt(outputs.length);
      const tip = this.tipOf(chain, Number(counters.get(blocksScope(chain))!));
      // one transaction: its hash is made from its first output's salt
      const txHash = this.txHash(chain, tip + 1, `in:${chain}:${outputs[0]!.address}:${first}`);
      const records = outputs.map((o, i): SimulatedDepositRecord => {
        const salt = `in:${chain}:${o.address}:${first + BigInt(i)}`;
        return {
          chain,
          transferId: `${chain}:${this.digest(salt).subarray(0, 12).toString("hex")}`,
          asset: o.asset,
          address: o.address,
          amount: o.amount,
          txHash,
          includedAt: tip + 1,
          droppedAt: null,
          created: this.clock.now(),
          ...(owner ? { owner, ownerBlocks: mined } : {}),
        };
      });
      // their ids are new: the deposits' numbers are this transaction's alone; a key paid before
      // answers its first deposit instead
      if (key !== undefined) {
        const earlier = await st.putKeyedDeposit(records[0]!, key);
        if (earlier) return [[earlier], tip, mined] as const;
      } else {
        await st.putDeposits(records);
      }
      return [records, tip, mined] as const;
    });
    return records.map((record) => this.inbound(record, tip, config, mined));
  }

  /**
   * Makes the next `count` broadcasts on `chain` fail (`rejected` at once, or `reverted` when
   * mined). Kept in this process only: a test's programmatic control, not a test-mode outcome.
   */
  failNext(chain: string, count = 1, mode: "rejected" | "reverted" = "rejected"): void {
    this.chainConfig(chain);
    this.forcedFailures.set(chain, { count, mode });
  }

  /** Sets what is left to send of `asset` on `chain` (decimal string). */
  async setLiquidity(chain: string, asset: string, amount: string): Promise<void> {
    const target = this.units(asset, amount, true);
    const spent = this.configuredLiquidity(chain, asset) - target;
    await this.transaction(async (st) => {
      await st.addToCounters([[spentScope(chain, asset), 0n]]); // locked, then set
      await st.setCounters(new Map([[spentScope(chain, asset), spent]]));
    });
    this.spent.delete(spentScope(chain, asset));
  }

  // ---- internals ------------------------------------------------------------------------------

  /** A deposit as the chain reports it; `mined`: the blocks mined so far in its owner's view. */
  private inbound(t: SimulatedDepositRecord, chainTip: number, config: SimulatedChainConfig, mined = 0): InboundTransfer {
    const includedAt = t.includedAt;
    // its owner's view is the chain plus the blocks mined in that view since it was paid
    const tip = chainTip + (t.owner ? mined - (t.ownerBlocks ?? 0) : 0);
    const confirmations = t.droppedAt !== null || tip < includedAt ? 0 : tip - includedAt + 1;
    const finality =
      t.droppedAt !== null ? "reverted" : confirmations === 0 ? "pending" : confirmations >= config.confirmationsToFinality ? "final" : "included";
    return {
      transferId: t.transferId,
      chain: t.chain,
      asset: t.asset,
      address: t.address,
      amount: t.amount,
      txHash: t.txHash,
      confirmations,
      finality,
      seenAt: GENESIS + includedAt * config.blockTimeMs,
    };
  }

  /** One transaction of the simulated world. */
  private transaction<T>(fn: (state: SimulatedState) => Promise<T>): Promise<T> {
    return this.state.transaction((tx) => fn(new SimulatedState(tx)));
  }

  /** The reorganisations of `chain` as of its `reorgs` counter (read again only when it moved). */
  private async reorgLog(st: SimulatedState, chain: string, reorgs: bigint): Promise<readonly ReorgEntry[]> {
    if (reorgs === 0n) return [];
    const known = this.logs.get(chain);
    if (known?.reorgs === reorgs) return known.entries;
    const entries = await st.reorgLog(chain);
    this.logs.set(chain, { reorgs, entries });
    return entries;
  }

  private async heightIn(st: SimulatedState, chain: string): Promise<number> {
    const { counters } = await st.read([blocksScope(chain)]);
    return this.tipOf(chain, Number(counters.get(blocksScope(chain))!));
  }

  private async ownerBlocksIn(st: SimulatedState, chain: string, owner: string): Promise<number> {
    const scope = ownerBlocksScope(chain, owner);
    return Number((await st.read([scope])).counters.get(scope)!);
  }

  private tipOf(chain: string, extraBlocks: number): number {
    return Math.floor((this.clock.now() - GENESIS) / this.chainConfig(chain).blockTimeMs) + extraBlocks;
  }

  /**
   * The counters a transfer's height depends on, as storage has them now; kept as this
   * process's view (a view read in a transaction that rolls back is still what storage held).
   */
  private async readView(st: SimulatedState, chain: string): Promise<ChainView> {
    return this.keepView(chain, (await st.read([blocksScope(chain), reorgsScope(chain)])).counters);
  }

  /** The view of `chain` from its counters as just read, kept as this process's. */
  private keepView(chain: string, counters: ReadonlyMap<string, bigint>): ChainView {
    const view = { readAt: this.clock.now(), blocks: Number(counters.get(blocksScope(chain))!), reorgs: counters.get(reorgsScope(chain))! };
    this.views.set(chain, view);
    return view;
  }

  /** This process's view of the chain's counters if read within `VIEW_TTL_MS`, else null. */
  private freshView(chain: string): ChainView | null {
    const view = this.views.get(chain);
    return view && this.clock.now() - view.readAt < VIEW_TTL_MS ? view : null;
  }

  private configuredLiquidity(chain: string, asset: string): bigint {
    const configured = this.chainConfig(chain).liquidity[asset];
    return configured ? this.units(asset, configured, true) : 0n;
  }

  private chainConfig(chain: string): SimulatedChainConfig {
    const config = this.config.get(chain);
    if (!config) throw new Error(`the simulated chains do not serve ${chain}`);
    return config;
  }

  private family(chain: string): ChainFamily {
    return this.assets.chain(chain)!.family;
  }

  private units(asset: string, amount: string, allowZero = false): bigint {
    const definition = this.assets.get(asset);
    if (!definition) throw new TypeError(`simulated chains: unknown asset ${asset}`);
    const parsed = parseAmount(amount, definition, "amount", { allowZero });
    if (parsed.isErr()) throw new TypeError(`simulated chains: ${asset} amount ${amount}: ${parsed.error.message}`);
    return parsed.value;
  }

  private digest(text: string): Buffer {
    return createHash("sha256").update(`${this.seed}\u0000${text}`).digest();
  }

  /** How a new broadcast fails, if it does (forced failures aside): to a failing address, or by the seed. */
  private peekFailure(transfer: OutboundTransfer, config: SimulatedChainConfig): "rejected" | "reverted" | null {
    if (failsOnChain(this.family(transfer.chain), transfer.to)) return "reverted";
    const rate = config.failureRate ?? 0;
    if (rate <= 0) return null;
    const draw = this.digest(`fail:${transfer.transferId}`).readUInt32BE(0) / 2 ** 32;
    return draw < rate ? (config.failureMode ?? "rejected") : null;
  }

  /** 8 bytes of inclusion height, then hash bytes, written in the chain's usual form. */
  private txHash(chain: string, includedAt: number, salt: string): string {
    const family = this.family(chain);
    const bytes = Buffer.alloc(family === "solana" ? 64 : 32);
    bytes.writeBigUInt64BE(BigInt(includedAt), 0);
    const filler = Buffer.concat([this.digest(salt), this.digest(`${salt}:2`)]);
    filler.copy(bytes, 8, 0, bytes.length - 8);
    if (family === "solana") return base58.encode(bytes);
    const hex = bytes.toString("hex");
    return family === "evm" ? `0x${hex}` : hex;
  }

  private decodeHeight(chain: string, txHash: string): number {
    const family = this.family(chain);
    let bytes: Uint8Array;
    try {
      bytes = family === "solana" ? base58.decode(txHash) : Buffer.from(family === "evm" ? txHash.slice(2) : txHash, "hex");
    } catch {
      throw new Error(`not a transaction of the simulated ${chain}: ${txHash}`);
    }
    if (bytes.length < 8) throw new Error(`not a transaction of the simulated ${chain}: ${txHash}`);
    return Number(Buffer.from(bytes).readBigUInt64BE(0));
  }

  private address(family: ChainFamily, salt: string): string {
    const d = this.digest(salt);
    switch (family) {
      case "evm":
        return toChecksumAddress(`0x${d.subarray(0, 20).toString("hex")}`);
      case "solana":
        return base58.encode(d.subarray(0, 32));
      case "bitcoin":
        return bech32Address(d.subarray(0, 20));
    }
  }
}

/** A mainnet segwit v0 (P2WPKH) address for a 20-byte program. */
function bech32Address(program: Uint8Array): string {
  return bech32.encode("bc", [0, ...bech32.toWords(program)]);
}

const spentScope = (chain: string, asset: string) => `spent:${chain}:${asset}`;
const blocksScope = (chain: string) => `blocks:${chain}`;
const reorgsScope = (chain: string) => `reorgs:${chain}`;
/** Blocks mined in one owner's view only (`advance` with an owner). */
const ownerBlocksScope = (chain: string, owner: string) => `blocks:${chain}@${owner}`;

/** How long `transferStatus` trusts its view of a chain before reading storage again. */
const VIEW_TTL_MS = 250;

/** What a sent transfer's status depends on, tagged with the reorganisation count it was read at. */
interface SentTransfer {
  includedAt: number;
  failure: string | null;
  reorgs: bigint;
}

/** `failNext`: how many of the next broadcasts on a chain fail, and how. */
interface ForcedFailure {
  count: number;
  mode: "rejected" | "reverted";
}

interface ChainView {
  readAt: number;
  blocks: number;
  reorgs: bigint;
}

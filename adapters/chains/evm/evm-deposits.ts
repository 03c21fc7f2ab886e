import { keccak256, toBytes } from "viem";
import type { InboundTransfer } from "../../../src/ports/public";
import type { EvmAddressRecord, EvmBlockRecord, EvmDepositRecord } from "./evm-state";
import type { EvmContext } from "./evm-context";

export const TRANSFER_TOPIC = keccak256(toBytes("Transfer(address,address,uint256)"));

/** A token deposit's id: the chain, the block and the log it arrived by (one output, docs/decisions.md). */
export function tokenDepositId(chain: string, blockHash: string, logIndex: number): string {
  return `${chain}:${blockHash}:${logIndex}`;
}

/** Block hashes kept below the scan tip, to find where a reorganisation forked. */
const KEPT_BLOCKS = 256;

/** The chain moved under a read (a log's block is not the canonical one): read again later. */
export class ChainMoved extends Error {}

/**
 * Deposits to the wallet's derived addresses on one chain (docs/decisions.md §9): ERC-20 `Transfer`
 * logs of the configured tokens, and plain value transfers of the native asset, read from a
 * saved scan tip. Each read first checks the saved tip's hash against the node's block at that
 * height; when they differ, it walks back over the saved block hashes to the fork, marks the
 * deposits above it reverted (the payment intent path reverses their credit), and reads the
 * new branch from there. A deposit's id names its block hash, so the same transaction mined
 * again on the new branch is a new deposit. Deposits to any address of the wallet count (an
 * address made for one chain receives on all), so a payment that came the wrong way is seen.
 */
export class EvmDeposits {
  private addresses = new Map<string, EvmAddressRecord>();
  private lastIndex = 0;

  constructor(
    private readonly ctx: EvmContext,
    private readonly maxBlocksPerRead: number,
    private readonly startBlock: number | null,
  ) {}

  /**
   * Reads the chain past the saved tip and answers the deposits changed since `cursor` (a scan
   * tip of an earlier answer): not final as of it, or reverted since; the new cursor is the new
   * scan tip. Confirmations count from the node's head.
   */
  async read(cursor: string | null): Promise<{ transfers: InboundTransfer[]; cursor: string }> {
    const ctx = this.ctx;
    const head = await ctx.rpc.blockNumber();
    const tip = await this.scan(head);
    ctx.report({ type: "chain_head", chain: ctx.chain, head, lastBlockRead: tip });
    const since = cursor === null ? 0 : Number(cursor);
    const changed = await ctx.transaction((tx) =>
      tx.listDeposits(ctx.chain, { minBlock: Math.max(0, since - ctx.finalityConfirmations + 1), revertedSince: since }),
    );
    return { transfers: changed.map((d) => this.inbound(d, head)), cursor: String(tip) };
  }

  /** The address record of a derived address, or undefined (refreshes from storage when unknown). */
  async owner(address: string): Promise<EvmAddressRecord | undefined> {
    const key = address.toLowerCase();
    if (!this.addresses.has(key)) await this.refreshAddresses();
    return this.addresses.get(key);
  }

  /** Reads blocks (tip, head] (at most `maxBlocksPerRead`); returns the scan tip after it. */
  private async scan(head: number): Promise<number> {
    const ctx = this.ctx;
    await this.refreshAddresses();
    const tip = await ctx.transaction((tx) => tx.getScanTip(ctx.chain));
    let start: number;
    let fork: number | null = null;
    if (!tip) {
      const first = [...this.addresses.values()].reduce((min, a) => Math.min(min, a.fromBlock), Number.POSITIVE_INFINITY);
      start = this.startBlock ?? (Number.isFinite(first) ? first : head);
    } else {
      const now = await ctx.rpc.block(tip.number);
      if (now && now.hash === tip.hash) {
        start = tip.number + 1;
      } else {
        fork = await this.forkPoint(tip);
        start = fork + 1;
      }
    }
    const to = Math.min(head, start + this.maxBlocksPerRead - 1);
    const found: EvmDepositRecord[] = [];
    const blocks = new Map<number, EvmBlockRecord>();
    let newTip: EvmBlockRecord;
    if (to < start) {
      // nothing new: the chain is no longer than what was read (or it shrank under a reorganisation)
      const at = fork ?? tip!.number;
      const block = await ctx.rpc.block(Math.min(at, head));
      if (!block) throw new ChainMoved(`block ${at} of ${ctx.chain} is missing`);
      newTip = { chain: ctx.chain, number: block.number, hash: block.hash };
    } else {
      found.push(...(await this.tokenDeposits(start, to)), ...(await this.nativeDeposits(start, to)));
      const top = await ctx.rpc.block(to);
      if (!top) throw new ChainMoved(`block ${to} of ${ctx.chain} is missing`);
      newTip = { chain: ctx.chain, number: top.number, hash: top.hash };
      for (const d of found) blocks.set(d.blockNumber, { chain: ctx.chain, number: d.blockNumber, hash: d.blockHash });
    }
    blocks.set(newTip.number, newTip);
    const moved = await ctx.transaction(async (tx) => {
      if (!(await tx.moveScanTip(ctx.chain, tip, newTip))) return false; // another process read it first
      if (fork !== null) {
        await tx.revertDeposits(ctx.chain, fork + 1, head);
        await tx.deleteBlocks(ctx.chain, { from: fork + 1 });
      }
      await tx.insertDeposits(found);
      await tx.putBlocks([...blocks.values()]);
      await tx.deleteBlocks(ctx.chain, { below: newTip.number - KEPT_BLOCKS });
      return true;
    });
    // the blocks read above the fork were replaced (reported once: by the process that moved the tip)
    if (moved && fork !== null && tip) ctx.report({ type: "chain_reorg", chain: ctx.chain, depth: tip.number - fork });
    return newTip.number;
  }

  /** The highest saved block still on the node's chain (below the saved tip, which is not). */
  private async forkPoint(tip: EvmBlockRecord): Promise<number> {
    const ctx = this.ctx;
    const saved = (await ctx.transaction((tx) => tx.listBlocks(ctx.chain))).filter((b) => b.number < tip.number);
    for (let i = saved.length - 1; i >= 0; i--) {
      const b = saved[i]!;
      const now = await ctx.rpc.block(b.number);
      if (now && now.hash === b.hash) return b.number;
    }
    // deeper than every saved hash: read the whole kept window again
    return Math.max(0, (saved[0]?.number ?? tip.number) - 1);
  }

  private async tokenDeposits(from: number, to: number): Promise<EvmDepositRecord[]> {
    const ctx = this.ctx;
    if (ctx.tokens.size === 0 || this.addresses.size === 0) return [];
    const assetOf = new Map([...ctx.tokens].map(([asset, token]) => [token.toLowerCase(), asset]));
    const logs = await ctx.rpc.logs({ fromBlock: from, toBlock: to, address: [...ctx.tokens.values()], topics: [TRANSFER_TOPIC] });
    const deposits: EvmDepositRecord[] = [];
    const times = new Map<number, number>();
    for (const log of logs) {
      if (log.removed || log.topics.length < 3) continue;
      const recipient = `0x${log.topics[2]!.slice(-40)}`.toLowerCase();
      const owner = this.addresses.get(recipient);
      const asset = assetOf.get(log.address.toLowerCase());
      if (!owner || !asset) continue;
      const amount = BigInt(log.data);
      if (amount === 0n) continue;
      if (!times.has(log.blockNumber)) {
        // the log's block must be the canonical one (the node may have moved during the read)
        const block = await ctx.rpc.block(log.blockNumber);
        if (!block || block.hash !== log.blockHash) throw new ChainMoved(`${ctx.chain} reorganised during a read`);
        times.set(log.blockNumber, block.timestamp);
      }
      deposits.push({
        chain: ctx.chain,
        transferId: tokenDepositId(ctx.chain, log.blockHash, log.logIndex),
        address: owner.address,
        asset,
        amount,
        txHash: log.transactionHash,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
        blockTime: times.get(log.blockNumber)!,
        revertedAt: null,
        sweep: null,
        created: ctx.clock.now(),
      });
    }
    return deposits;
  }

  /** Value transfers to derived addresses (the engine's own gas top-ups excepted). */
  private async nativeDeposits(from: number, to: number): Promise<EvmDepositRecord[]> {
    const ctx = this.ctx;
    const asset = ctx.nativeAsset;
    if (!asset || this.addresses.size === 0) return [];
    const deposits: EvmDepositRecord[] = [];
    for (let n = from; n <= to; n++) {
      const block = await ctx.rpc.block(n, true);
      if (!block) throw new ChainMoved(`block ${n} of ${ctx.chain} is missing`);
      for (const t of block.transactions) {
        const owner = t.to ? this.addresses.get(t.to.toLowerCase()) : undefined;
        if (!owner || t.value === 0n) continue;
        const ours = await ctx.transaction((tx) => tx.findTransactionByHash(ctx.chain, t.hash));
        if (ours?.kind === "top_up") continue;
        const receipt = await ctx.rpc.receipt(t.hash);
        if (!receipt || receipt.status !== "success" || receipt.blockHash !== block.hash) continue;
        deposits.push({
          chain: ctx.chain,
          transferId: `${ctx.chain}:${block.hash}:tx${t.transactionIndex}`,
          address: owner.address,
          asset,
          amount: t.value,
          txHash: t.hash,
          blockNumber: block.number,
          blockHash: block.hash,
          blockTime: block.timestamp,
          revertedAt: null,
          sweep: null,
          created: ctx.clock.now(),
        });
      }
    }
    return deposits;
  }

  private async refreshAddresses(): Promise<void> {
    const ctx = this.ctx;
    const wallet = await ctx.hotWallet();
    const fresh = await ctx.transaction((tx) => tx.listAddresses(wallet, this.lastIndex));
    for (const a of fresh) {
      this.addresses.set(a.address.toLowerCase(), a);
      this.lastIndex = Math.max(this.lastIndex, a.index);
    }
  }

  private inbound(d: EvmDepositRecord, head: number): InboundTransfer {
    const confirmations = d.revertedAt !== null || head < d.blockNumber ? 0 : head - d.blockNumber + 1;
    return {
      transferId: d.transferId,
      chain: d.chain,
      asset: d.asset,
      address: d.address,
      amount: d.amount,
      txHash: d.txHash,
      confirmations,
      finality: d.revertedAt !== null ? "reverted" : confirmations >= this.ctx.finalityConfirmations ? "final" : confirmations > 0 ? "included" : "pending",
      seenAt: d.blockTime,
    };
  }
}

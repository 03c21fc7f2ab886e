import type { InboundTransfer } from "../../../src/ports/public";
import type { SolanaContext } from "./solana-context";
import type { SolanaDepositRecord, SolanaWatchRecord } from "./solana-state";

/**
 * Deposits to the per-intent addresses (docs/chains.md, Solana). Each address is watched on the
 * accounts payments arrive at: its associated token account for every configured mint, and the
 * address itself for SOL. A read asks `getSignaturesForAddress` (at `confirmed`) of each watched
 * account for signatures after the newest finalized one it read, and the transaction of each new
 * signature for the account's balance change (`preTokenBalances`/`postTokenBalances`, or
 * lamports): one deposit per (transaction, slot, account), whose id names all three and the
 * asset, so one transaction paying several deposit accounts (an exchange's batched withdrawal)
 * is a deposit on each. Deposits not yet final have their status asked each read: `finalized`
 * makes them final, a status the node no longer knows (a fork dropped the block) reverts them.
 * A deposit's id names its slot, so the same transaction landing again on another fork is a new
 * deposit.
 */
export class SolanaDeposits {
  constructor(private readonly ctx: SolanaContext) {}

  /** Reads the chain, then answers deposits changed since `cursor` (a change number) and those still open. */
  async read(cursor: string | null): Promise<{ transfers: InboundTransfer[]; cursor: string }> {
    const ctx = this.ctx;
    const watches = await ctx.transaction((tx) => tx.listWatches());
    for (const watch of watches) await this.readAccount(watch);
    await this.follow();
    const since = cursor === null ? 0 : Number(cursor);
    if (!Number.isSafeInteger(since) || since < 0) throw new TypeError(`not a cursor of this adapter: ${cursor}`);
    return ctx.transaction(async (tx) => {
      const { ids, last } = await tx.changesAfter(since);
      const open = await tx.openDepositIds();
      const deposits = await tx.getDeposits([...new Set([...ids, ...open])]);
      return { transfers: deposits.map((d) => this.inbound(d)), cursor: String(last) };
    });
  }

  /** New signatures of one watched account since the newest finalized one read. */
  private async readAccount(watch: SolanaWatchRecord): Promise<void> {
    const ctx = this.ctx;
    const listed = await ctx.rpc.signaturesFor(watch.account, watch.until);
    // oldest first, so a deposit's change comes before a later one's
    for (const s of [...listed].reverse()) {
      if (s.err !== null) continue;
      const known = await ctx.transaction(async (tx) => ({
        ours: await tx.isOurs(s.signature),
        deposit: await tx.latestDepositOf(s.signature, watch.account),
      }));
      if (known.ours) continue; // a sweep out of the address
      if (known.deposit && known.deposit.slot === s.slot) continue;
      const landed = await ctx.rpc.transaction(s.signature, "confirmed");
      if (!landed || landed.err !== null || landed.slot !== s.slot) continue;
      const at = landed.keys.indexOf(watch.account);
      if (at < 0) continue;
      let amount: bigint;
      if (watch.asset === ctx.nativeAsset) {
        amount = landed.post[at]! - landed.pre[at]!;
      } else {
        const mint = ctx.tokens.get(watch.asset)?.mint;
        const post = landed.postTokens.get(watch.account);
        if (!mint || !post || post.mint !== mint) continue;
        amount = post.amount - (landed.preTokens.get(watch.account)?.amount ?? 0n);
      }
      if (amount <= 0n) continue;
      const deposit: SolanaDepositRecord = {
        id: solanaDepositId(ctx.chain, s.signature, s.slot, watch.account, watch.asset),
        address: watch.owner,
        keyIndex: watch.keyIndex,
        account: watch.account,
        asset: watch.asset,
        amount: amount.toString(),
        signature: s.signature,
        slot: s.slot,
        blockTime: (landed.blockTime ?? s.blockTime ?? Math.floor(ctx.clock.now() / 1000)) * 1000,
        status: "included",
        confirmations: 1,
        sweep: null,
        swept: null,
      };
      await ctx.transaction(async (tx) => {
        if (await tx.getDeposit(deposit.id)) return; // another process read this account's change first
        await tx.putDeposit(deposit, true);
      });
    }
    const newestFinal = listed.find((s) => s.confirmationStatus === "finalized");
    if (newestFinal && newestFinal.signature !== watch.until) {
      await ctx.transaction((tx) => tx.putWatch({ ...watch, until: newestFinal.signature }));
    }
  }

  /** Asks the status of every open deposit: final at `finalized`, reverted when the node lost it. */
  private async follow(): Promise<void> {
    const ctx = this.ctx;
    const open = await ctx.transaction(async (tx) => tx.getDeposits(await tx.openDepositIds()));
    if (open.length === 0) return;
    const statuses = await ctx.rpc.statuses(open.map((d) => d.signature));
    let forked = false;
    for (const [i, d] of open.entries()) {
      const s = statuses[i]!;
      let next: SolanaDepositRecord;
      if (s === null || s.slot !== d.slot || s.err !== null) next = { ...d, status: "reverted", confirmations: 0 };
      else if (s.confirmationStatus === "finalized") next = { ...d, status: "final", confirmations: ctx.finalityConfirmations };
      else next = { ...d, confirmations: Math.max(1, Math.min(s.confirmations ?? 1, ctx.finalityConfirmations - 1)) };
      if (next.status === d.status && next.confirmations === d.confirmations) continue;
      const moved = await ctx.transaction(async (tx) => {
        const stored = await tx.getDeposit(d.id);
        if (!stored || stored.status !== "included") return false;
        await tx.putDeposit({ ...stored, status: next.status, confirmations: next.confirmations }, next.status !== stored.status);
        return true;
      });
      if (moved && next.status === "reverted" && (s === null || s.err === null)) forked = true;
    }
    // a deposit read on a fork the cluster dropped: a reorganisation, of a depth the node does not tell
    if (forked) ctx.report({ type: "chain_reorg", chain: ctx.chain, depth: null });
  }

  private inbound(d: SolanaDepositRecord): InboundTransfer {
    return {
      transferId: d.id,
      chain: this.ctx.chain,
      asset: d.asset,
      address: d.address,
      amount: BigInt(d.amount),
      txHash: d.signature,
      confirmations: d.status === "reverted" ? 0 : d.confirmations,
      finality: d.status,
      seenAt: d.blockTime,
    };
  }
}

/**
 * A deposit's id: one output of one transaction as it landed (signature and slot) to one
 * account (the deposit address for SOL, its ATA for a token), of one asset. Deposits stored
 * before the account was part of it (`chain:signature:slot:asset`) keep their ids; they are
 * found again by (signature, account), never by id.
 */
export function solanaDepositId(chain: string, signature: string, slot: number, account: string, asset: string): string {
  return `${chain}:${signature}:${slot}:${account}:${asset}`;
}

import { createHash } from "node:crypto";
import { encodeFunctionData, erc20Abi } from "viem";
import type { EvmDepositRecord, EvmSweepRecord } from "./evm-state";
import type { EvmContext } from "./evm-context";
import type { EvmDeposits } from "./evm-deposits";
import { GAS_MARGIN_PERCENT, type EvmSender, type OutboundCall } from "./evm-sender";

/** Tries of one sweep (top-up and move) before it is left to the operator. */
const MAX_ATTEMPTS = 5;
/** A top-up sends this much more gas than the estimate needs, in percent (fees move meanwhile). */
const TOP_UP_PERCENT = 150n;

/**
 * Moves final deposits from their derived addresses to the hot wallet (docs/decisions.md §9). One
 * sweep per address and asset gathers the final deposits not yet swept; a token sweep first
 * tops the address up with gas from the hot wallet, then sends the tokens; a native sweep sends
 * the balance less its own gas. Every transaction goes through the sender under an id derived
 * from the sweep and its try, so a repeated step re-sends the same bytes and never moves twice.
 * Sweeps are custody only: no account's balance changes.
 */
export class EvmSweeps {
  constructor(
    private readonly ctx: EvmContext,
    private readonly sender: EvmSender,
    private readonly deposits: EvmDeposits,
  ) {}

  /** Starts sweeps for final deposits and moves every open sweep one step. */
  async run(): Promise<{ pending: boolean }> {
    const ctx = this.ctx;
    await this.sender.heal(await ctx.hotWallet()); // a top-up a reorganisation dropped is sent again
    const head = await ctx.rpc.blockNumber();
    await this.open(head - ctx.finalityConfirmations + 1);
    const open = await ctx.transaction((tx) => tx.listOpenSweeps(ctx.chain));
    for (const sweep of open) await this.step(sweep);
    // still under way: open sweeps, or deposits not swept yet (in flight, or found while this ran)
    const left = await ctx.transaction(async (tx) => ({
      sweeps: await tx.listOpenSweeps(ctx.chain),
      deposits: await tx.listDeposits(ctx.chain, { unsweptTo: Number.MAX_SAFE_INTEGER }),
    }));
    return { pending: left.sweeps.length > 0 || left.deposits.length > 0 };
  }

  private async open(finalTo: number): Promise<void> {
    const ctx = this.ctx;
    const unswept = await ctx.transaction((tx) => tx.listDeposits(ctx.chain, { unsweptTo: finalTo }));
    const groups = new Map<string, EvmDepositRecord[]>();
    for (const d of unswept) {
      const key = `${d.address}\u0000${d.asset}`;
      groups.set(key, [...(groups.get(key) ?? []), d]);
    }
    for (const group of groups.values()) {
      const { address, asset } = group[0]!;
      const owner = await this.deposits.owner(address);
      if (!owner) continue;
      const ids = group.map((d) => d.transferId).sort();
      const id = `swp_${createHash("sha256")
        .update(`${ctx.chain}\u0000${ids.join("\u0000")}`)
        .digest("hex")
        .slice(0, 26)}`;
      const now = ctx.clock.now();
      const sweep: EvmSweepRecord = {
        chain: ctx.chain,
        id,
        address,
        keyIndex: owner.index,
        asset,
        amount: group.reduce((sum, d) => sum + d.amount, 0n),
        status: asset === ctx.nativeAsset ? "moving" : "topping_up",
        attempt: 1,
        reason: null,
        created: now,
        updated: now,
      };
      await ctx.transaction(async (tx) => {
        // only deposits still unswept in this transaction join the sweep
        const still = (await tx.listDeposits(ctx.chain, { unsweptTo: finalTo })).filter((d) => ids.includes(d.transferId));
        if (still.length !== ids.length) return;
        await tx.insertSweep(sweep);
        await tx.setDepositSweep(ctx.chain, ids, id);
      });
    }
  }

  private async step(sweep: EvmSweepRecord): Promise<void> {
    if (sweep.status === "topping_up") await this.topUp(sweep);
    else if (sweep.status === "moving") await this.move(sweep);
  }

  /** Makes sure the address holds the gas of its token transfer, sending it from the hot wallet. */
  private async topUp(sweep: EvmSweepRecord): Promise<void> {
    const ctx = this.ctx;
    const hot = await ctx.hotWallet();
    const token = ctx.tokens.get(sweep.asset);
    if (!token) return this.update(sweep, { status: "abandoned", reason: `no token of ${sweep.asset} is configured` });
    const held = await this.ctx.rpc.tokenBalance(token, sweep.address);
    if (held === 0n) return this.update(sweep, { status: "abandoned", reason: "nothing to move (the deposits were reverted)" });
    let gas: bigint;
    try {
      gas = await ctx.rpc.estimateGas({ from: sweep.address, to: token, data: transferData(hot, min(held, sweep.amount)), value: 0n });
    } catch {
      return this.retry(sweep, "topping_up", "the token transfer would revert");
    }
    const fees = await this.sender.currentFees();
    const needed = (gas * GAS_MARGIN_PERCENT * fees.maxFeePerGas) / 100n;
    const transferId = `${sweep.id}:gas:${sweep.attempt}`;
    const existing = await ctx.transaction((tx) => tx.getTransaction(ctx.chain, transferId));
    if (!existing) {
      const balance = await ctx.rpc.balance(sweep.address, "pending");
      if (balance >= needed) return this.update(sweep, { status: "moving" });
    }
    const gasAsset = ctx.nativeAsset ?? "GAS";
    const call: OutboundCall = {
      transferId,
      kind: "top_up",
      keyIndex: 0,
      from: hot,
      to: sweep.address,
      asset: gasAsset,
      amount: (needed * TOP_UP_PERCENT) / 100n,
      call: { to: sweep.address, data: "0x", value: (needed * TOP_UP_PERCENT) / 100n },
    };
    const { record } = existing ? { record: existing } : await this.sender.send(call);
    if (record.status === "rejected") return this.retry(sweep, "topping_up", record.reason ?? "top-up refused");
    const status = await this.sender.status(record);
    if (status.failure) return this.retry(sweep, "topping_up", status.failure);
    if (status.finality === "final") await this.update(sweep, { status: "moving" });
  }

  /** Sends the deposits to the hot wallet and follows the transaction to finality. */
  private async move(sweep: EvmSweepRecord): Promise<void> {
    const ctx = this.ctx;
    const hot = await ctx.hotWallet();
    const transferId = `${sweep.id}:move:${sweep.attempt}`;
    let record = await ctx.transaction((tx) => tx.getTransaction(ctx.chain, transferId));
    if (!record) {
      const request = await this.moveRequest(sweep, hot, transferId);
      if (!request)
        return this.update(sweep, { status: "abandoned", reason: "nothing to move (the deposits were reverted, or are worth less than their gas)" });
      try {
        record = (await this.sender.send(request)).record;
      } catch (e) {
        // the address lacks gas after all (fees rose): top it up again
        if (sweep.asset !== ctx.nativeAsset) return this.retry(sweep, "topping_up", e instanceof Error ? e.message : String(e));
        throw e;
      }
    }
    if (record.status === "rejected") return this.retry(sweep, sweep.asset === ctx.nativeAsset ? "moving" : "topping_up", record.reason ?? "refused");
    const status = await this.sender.status(record);
    if (status.failure) return this.retry(sweep, sweep.asset === ctx.nativeAsset ? "moving" : "topping_up", status.failure);
    if (status.finality === "final") await this.update(sweep, { status: "done" });
  }

  private async moveRequest(sweep: EvmSweepRecord, hot: string, transferId: string): Promise<OutboundCall | null> {
    const ctx = this.ctx;
    const base = { transferId, kind: "sweep", keyIndex: sweep.keyIndex, from: sweep.address, to: hot, asset: sweep.asset };
    if (sweep.asset === ctx.nativeAsset) {
      const balance = await ctx.rpc.balance(sweep.address, "pending");
      const fees = await this.sender.currentFees();
      // what the send's own check asks for (its gas limit at the fee cap), with room for fees rising meanwhile
      const estimate = await ctx.rpc.estimateGas({ from: sweep.address, to: hot, data: "0x", value: 1n });
      const gas = (estimate * GAS_MARGIN_PERCENT * fees.maxFeePerGas * 5n) / 400n;
      const value = balance > gas ? min(balance - gas, sweep.amount) : 0n;
      if (value <= 0n) return null;
      return { ...base, amount: value, call: { to: hot, data: "0x", value } };
    }
    const token = ctx.tokens.get(sweep.asset)!;
    const amount = min(await this.ctx.rpc.tokenBalance(token, sweep.address), sweep.amount);
    if (amount === 0n) return null;
    return { ...base, amount, call: { to: token, data: transferData(hot, amount), value: 0n } };
  }

  private retry(sweep: EvmSweepRecord, status: EvmSweepRecord["status"], reason: string): Promise<void> {
    if (sweep.attempt >= MAX_ATTEMPTS) return this.update(sweep, { status: "abandoned", reason });
    return this.update(sweep, { status, attempt: sweep.attempt + 1, reason });
  }

  private async update(sweep: EvmSweepRecord, change: Partial<EvmSweepRecord>): Promise<void> {
    const ctx = this.ctx;
    await ctx.transaction((tx) => tx.updateSweep({ ...sweep, ...change, updated: ctx.clock.now() }));
  }
}

export function transferData(to: string, amount: bigint): string {
  return encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to as `0x${string}`, amount] });
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

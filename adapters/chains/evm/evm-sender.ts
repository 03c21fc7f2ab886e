import { keccak256, parseTransaction } from "viem";
import type { TransferStatus } from "../../../src/ports/public";
import type { EvmTransactionRecord } from "./evm-state";
import type { EvmContext } from "./evm-context";
import { ExecutionReverted } from "./evm-rpc";

/**
 * A transaction the adapter wants made, once, under an id chosen before (a leg id, a sweep
 * step): what the record says about it, and the call itself (a token transfer, or a plain value
 * transfer).
 */
export interface OutboundCall extends Pick<EvmTransactionRecord, "transferId" | "kind" | "keyIndex" | "from" | "to" | "asset" | "amount"> {
  call: { to: string; data: string; value: bigint };
}

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Gas limit over the estimate, in percent: estimates can fall short when state moves. */
export const GAS_MARGIN_PERCENT = 120n;
/** A replacement raises both fee caps by at least this (nodes ask for 10 %). */
const REPLACEMENT_BUMP_PERCENT = 125n;

/** A concurrent run made the same transaction first: roll back our nonce and use theirs. */
class MadeElsewhere extends Error {}

/**
 * Sends a transaction exactly once per id (docs/decisions.md §9). The nonce is taken in a storage
 * transaction (the node's pending count is only a floor), the transaction is signed inside it
 * and saved before it is sent, so a retry or a process that crashed re-sends the same bytes and
 * nothing is paid twice. While unmined it is re-sent when the node lost it and replaced with
 * higher fees on the same nonce after `replaceAfterMs`; every attempt stays known, so whichever
 * is mined is found. A revert or a nonce taken by another transaction fails it.
 */
export class EvmSender {
  constructor(private readonly ctx: EvmContext) {}

  /**
   * Makes `request` once: the first call estimates, signs, saves and sends; later calls (same id)
   * re-send what was saved. A refusal (the EVM reverts the estimate, the asset cannot be sent)
   * is saved too, and answered again. Throws only when nothing was decided (node unreachable,
   * hot wallet without gas): the caller tries again later.
   */
  async send(request: OutboundCall): Promise<{ record: EvmTransactionRecord }> {
    const ctx = this.ctx;
    const existing = await ctx.transaction((tx) => tx.getTransaction(ctx.chain, request.transferId));
    if (existing) return { record: await this.resend(existing) };
    await this.heal(request.from);

    let gas: bigint;
    try {
      gas = ((await ctx.rpc.estimateGas({ from: request.from, ...request.call })) * GAS_MARGIN_PERCENT) / 100n;
    } catch (e) {
      if (e instanceof ExecutionReverted) return { record: await this.refuse(request, e.message) };
      throw e;
    }
    const fees = await this.currentFees();
    const balance = await ctx.rpc.balance(request.from, "pending");
    if (balance < gas * fees.maxFeePerGas + request.call.value) {
      if (request.call.value > 0n && balance < request.call.value) {
        return { record: await this.refuse(request, `insufficient ${request.asset} in the sending wallet`) };
      }
      throw new Error(`the sending wallet ${request.from} on ${ctx.chain} needs gas`);
    }
    const floor = await ctx.rpc.nonce(request.from, "pending");
    const chainId = await ctx.chainId();
    let record: EvmTransactionRecord;
    try {
      record = await ctx.transaction(async (tx) => {
        const nonce = await tx.takeSequence(nonceScope(ctx.chain, request.from), floor);
        const raw = await ctx.signer.signTransaction(request.keyIndex, {
          chainId,
          nonce,
          to: request.call.to,
          value: request.call.value,
          data: request.call.data,
          gas,
          ...fees,
        });
        const made = this.record(request, { nonce, status: "signed", reason: null, attempts: [attempt(raw, fees, ctx.clock.now())] });
        if (!(await tx.insertTransaction(made))) throw new MadeElsewhere();
        return made;
      });
    } catch (e) {
      if (!(e instanceof MadeElsewhere)) throw e;
      const theirs = await ctx.transaction((tx) => tx.getTransaction(ctx.chain, request.transferId));
      return { record: await this.resend(theirs!) };
    }
    await this.push(record.attempts[0]!.raw);
    return { record };
  }

  /**
   * Where a transaction stands, from its receipts: a revert or a dropped transaction is a
   * failure once final; unmined, it is re-sent if the node lost it, or replaced if stuck.
   * Records the outcome (and what the gas cost the sender) once final.
   */
  async status(record: EvmTransactionRecord): Promise<TransferStatus & { gasCost?: bigint }> {
    const ctx = this.ctx;
    if (record.status === "rejected") return { confirmations: 0, finality: "pending", failure: record.reason };
    const first = record.attempts[0]!.txHash;
    const head = await ctx.rpc.blockNumber();
    const mined = await this.minedAttempt(record);
    if (mined) {
      const confirmations = Math.max(0, head - mined.receipt.blockNumber + 1);
      const final = confirmations >= ctx.finalityConfirmations;
      const failure = mined.receipt.status === "reverted" ? "transaction reverted" : null;
      if (final && record.status === "signed") {
        await this.settle(record, failure ? "failed" : "final", failure, mined.txHash, mined.receipt.fee);
      }
      return {
        confirmations,
        finality: final ? "final" : "included",
        // a revert counts once final: a reorganisation could still mine it again, succeeding
        failure: final ? failure : null,
        ...(mined.txHash !== first ? { txHash: mined.txHash } : {}),
        ...(final ? { gasCost: mined.receipt.fee } : {}),
      };
    }
    if (record.status !== "signed") {
      // recorded as settled, but no receipt now: a reorganisation deeper than finality
      return { confirmations: 0, finality: "pending", failure: record.status === "failed" ? record.reason : null };
    }
    const used = await ctx.rpc.nonce(record.from, "latest");
    if (record.nonce !== null && used > record.nonce) {
      // the nonce went to another transaction (unless ours was mined a moment ago)
      if (!(await this.minedAttempt(record))) {
        const reason = "dropped: the nonce was used by another transaction";
        await this.settle(record, "failed", reason, null, null);
        ctx.report({ type: "transaction_rescued", chain: ctx.chain, action: "dropped" });
        return { confirmations: 0, finality: "pending", failure: reason };
      }
      return this.status(record);
    }
    const latest = record.attempts[record.attempts.length - 1]!;
    if (ctx.clock.now() - latest.signedAt >= ctx.replaceAfterMs) {
      if (await this.replace(record)) ctx.report({ type: "transaction_rescued", chain: ctx.chain, action: "replaced" });
    } else if (!(await ctx.rpc.transaction(latest.txHash))) {
      await this.push(latest.raw);
      ctx.report({ type: "transaction_rescued", chain: ctx.chain, action: "resent" });
    }
    return { confirmations: 0, finality: "pending", failure: null };
  }

  /**
   * Keeps `from`'s nonces without gaps after a reorganisation (even one deeper than finality):
   * every saved transaction whose nonce the chain has not counted and that has no receipt is
   * sent again, reopened if it was recorded final (the engine booked it: the chain must carry
   * it). A failed one is never sent again (its leg released its funds); its nonce gets a
   * zero-value transaction to itself instead, so the transactions after it can be mined. Cheap
   * when nothing is wrong: one nonce read and one query.
   */
  async heal(from: string): Promise<void> {
    const ctx = this.ctx;
    const counted = await ctx.rpc.nonce(from, "latest");
    const uncounted = await ctx.transaction((tx) => tx.listTransactionsFrom(ctx.chain, from, counted));
    for (const record of uncounted) {
      if (await this.minedAttempt(record)) continue; // mined meanwhile
      const latest = record.attempts[record.attempts.length - 1]!;
      if (record.status === "signed") {
        // usually followed by its owner; this one may be a sweep's top-up nobody follows any more
        if (!(await ctx.rpc.transaction(latest.txHash))) await this.push(latest.raw);
      } else if (record.status === "final") {
        await ctx.transaction(async (tx) => {
          const stored = await tx.getTransaction(ctx.chain, record.transferId, { lock: true });
          if (stored?.status === "final") {
            await tx.putTransaction({ ...stored, status: "signed", minedHash: null, gasCost: null, updated: ctx.clock.now() });
          }
        });
        await this.push(latest.raw);
      } else if (record.status === "failed" && !uncounted.some((r) => r.nonce === record.nonce && r.kind === "gap")) {
        await this.fillGap(record);
      }
    }
  }

  /** A zero-value transaction to itself on a failed transaction's nonce, saved and sent like any other. */
  private async fillGap(failed: EvmTransactionRecord): Promise<void> {
    const ctx = this.ctx;
    const fees = await this.currentFees();
    const chainId = await ctx.chainId();
    const gap: OutboundCall = {
      transferId: `gap:${failed.from.toLowerCase()}:${failed.nonce}`,
      kind: "gap",
      keyIndex: failed.keyIndex,
      from: failed.from,
      to: failed.from,
      asset: failed.asset,
      amount: 0n,
      call: { to: failed.from, data: "0x", value: 0n },
    };
    const made = await ctx.transaction(async (tx) => {
      const raw = await ctx.signer.signTransaction(gap.keyIndex, { chainId, nonce: failed.nonce!, to: gap.from, value: 0n, data: "0x", gas: 21_000n, ...fees });
      const record = this.record(gap, { nonce: failed.nonce, status: "signed", reason: null, attempts: [attempt(raw, fees, ctx.clock.now())] });
      return (await tx.insertTransaction(record)) ? record : null;
    });
    if (made) await this.push(made.attempts[0]!.raw);
  }

  /** The fee caps to sign with now: twice the base fee plus the node's suggested tip. */
  async currentFees(): Promise<Fees> {
    const block = await this.ctx.rpc.block("latest");
    const tip = await this.ctx.rpc.maxPriorityFeePerGas();
    const base = block?.baseFeePerGas ?? 0n;
    return { maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip };
  }

  /** Sends a signed transaction; whatever the node answers, the status check decides what happened. */
  async push(raw: string): Promise<void> {
    try {
      await this.ctx.rpc.sendRawTransaction(raw);
    } catch {
      // already known, nonce already used (mined), or unreachable: `status` sorts it out
    }
  }

  private async resend(record: EvmTransactionRecord): Promise<EvmTransactionRecord> {
    if (record.status === "signed") await this.push(record.attempts[record.attempts.length - 1]!.raw);
    return record;
  }

  /** Records a refusal of `request` unless it was made already; returns what is recorded. */
  async refuse(request: OutboundCall, reason: string): Promise<EvmTransactionRecord> {
    const ctx = this.ctx;
    const refusal = this.record(request, { nonce: null, status: "rejected", reason, attempts: [] });
    return ctx.transaction(async (tx) => ((await tx.insertTransaction(refusal)) ? refusal : (await tx.getTransaction(ctx.chain, request.transferId))!));
  }

  private record(request: OutboundCall, outcome: Pick<EvmTransactionRecord, "nonce" | "status" | "reason" | "attempts">): EvmTransactionRecord {
    const { call: _, ...what } = request;
    const now = this.ctx.clock.now();
    return { chain: this.ctx.chain, ...what, ...outcome, minedHash: null, gasCost: null, created: now, updated: now };
  }

  /**
   * Signs the same transaction again with higher fee caps and the same nonce, saves it, sends it;
   * false when another process replaced or settled it meanwhile.
   */
  private async replace(record: EvmTransactionRecord): Promise<boolean> {
    const ctx = this.ctx;
    const latest = record.attempts[record.attempts.length - 1]!;
    const current = await this.currentFees();
    const bump = (old: string, now: bigint) => {
      const raised = (BigInt(old) * REPLACEMENT_BUMP_PERCENT + 99n) / 100n;
      return raised > now ? raised : now;
    };
    const fees: Fees = {
      maxFeePerGas: bump(latest.maxFeePerGas, current.maxFeePerGas),
      maxPriorityFeePerGas: bump(latest.maxPriorityFeePerGas, current.maxPriorityFeePerGas),
    };
    if (fees.maxPriorityFeePerGas > fees.maxFeePerGas) fees.maxFeePerGas = fees.maxPriorityFeePerGas;
    const parsed = parseTransaction(latest.raw as `0x${string}`);
    const chainId = await ctx.chainId();
    const updated = await ctx.transaction(async (tx) => {
      const stored = await tx.getTransaction(ctx.chain, record.transferId, { lock: true });
      // another process replaced or settled it meanwhile
      if (!stored || stored.status !== "signed" || stored.attempts.length !== record.attempts.length) return null;
      const raw = await ctx.signer.signTransaction(stored.keyIndex, {
        chainId,
        nonce: stored.nonce!,
        to: parsed.to!,
        value: parsed.value ?? 0n,
        data: parsed.data ?? "0x",
        gas: parsed.gas!,
        ...fees,
      });
      const next = { ...stored, attempts: [...stored.attempts, attempt(raw, fees, ctx.clock.now())], updated: ctx.clock.now() };
      await tx.putTransaction(next);
      return next;
    });
    if (updated) await this.push(updated.attempts[updated.attempts.length - 1]!.raw);
    return updated !== null;
  }

  private async minedAttempt(record: EvmTransactionRecord) {
    for (let i = record.attempts.length - 1; i >= 0; i--) {
      const txHash = record.attempts[i]!.txHash;
      const receipt = await this.ctx.rpc.receipt(txHash);
      if (receipt) return { txHash, receipt };
    }
    return null;
  }

  private async settle(
    record: EvmTransactionRecord,
    status: "final" | "failed",
    reason: string | null,
    minedHash: string | null,
    gasCost: bigint | null,
  ): Promise<void> {
    const ctx = this.ctx;
    await ctx.transaction(async (tx) => {
      const stored = await tx.getTransaction(ctx.chain, record.transferId, { lock: true });
      if (!stored || stored.status !== "signed") return;
      await tx.putTransaction({ ...stored, status, reason, minedHash, gasCost, updated: ctx.clock.now() });
    });
  }
}

export const nonceScope = (chain: string, address: string) => `nonce:${chain}:${address.toLowerCase()}`;

function attempt(raw: string, fees: Fees, signedAt: number) {
  return {
    txHash: keccak256(raw as `0x${string}`),
    raw,
    maxFeePerGas: fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    signedAt,
  };
}

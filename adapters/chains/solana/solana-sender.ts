import type { Base64EncodedWireTransaction } from "@solana/kit";
import type { TransferStatus } from "../../../src/ports/public";
import type { SolanaContext } from "./solana-context";
import { ProgramRefused, type SignatureStatus, type SolanaRpc, describe } from "./solana-rpc";
import type { SolanaAttempt, SolanaPlan, SolanaTransactionRecord } from "./solana-state";
import { MAX_COMPUTE_UNITS, buildTransaction } from "./solana-transactions";

/** A transaction the adapter wants made once under an id chosen before (a leg id, a sweep). */
export type SolanaRequest = Pick<SolanaTransactionRecord, "transferId" | "kind" | "asset" | "amount" | "to" | "signers" | "plan">;

/** Compute units over the simulated ones, in percent, and at least this many more. */
const UNIT_MARGIN_PERCENT = 120;
const UNIT_MARGIN_MIN = 1_000;

/** A concurrent run saved the same transfer first: use theirs. */
class MadeElsewhere extends Error {}

/**
 * Sends a transaction exactly once per id (docs/chains.md, Solana). It is signed with a recent
 * blockhash and saved, with the block height after which that blockhash has expired
 * (`lastValidBlockHeight`), before it is sent; a retry, or a process after a crash, re-sends
 * the same bytes. Only when no attempt has landed and the *finalized* block height has passed
 * the latest attempt's `lastValidBlockHeight` (no fork can carry it any more) is the same plan
 * signed again with a new blockhash: at most one attempt of a transfer can ever land.
 */
export class SolanaSender {
  constructor(private readonly ctx: SolanaContext) {}

  /** Makes `request` once: the first call simulates, signs, saves and sends; later calls re-send what was saved. */
  async send(request: SolanaRequest): Promise<SolanaTransactionRecord> {
    const ctx = this.ctx;
    const existing = await ctx.transaction((tx) => tx.getTransaction(request.transferId));
    if (existing) return this.resend(existing);
    let plan: SolanaPlan;
    try {
      plan = await this.priced(request.plan);
    } catch (e) {
      if (e instanceof ProgramRefused) return this.refuse(request, e.message);
      throw e;
    }
    const lifetime = await ctx.rpc.latestBlockhash("confirmed");
    const signed = await this.sign({ ...request, plan }, lifetime);
    let record: SolanaTransactionRecord;
    try {
      record = await ctx.transaction(async (tx) => {
        const now = ctx.clock.now();
        const made: SolanaTransactionRecord = {
          ...request,
          plan,
          status: "signed",
          reason: null,
          attempts: [signed],
          landed: null,
          feeLamports: null,
          created: now,
          updated: now,
        };
        if (!(await tx.insertTransaction(made))) throw new MadeElsewhere();
        return made;
      });
    } catch (e) {
      if (!(e instanceof MadeElsewhere)) throw e;
      return this.resend((await ctx.transaction((tx) => tx.getTransaction(request.transferId)))!);
    }
    await this.push(record.attempts[0]!.raw);
    return record;
  }

  /** Records a refusal unless the transfer was made already; returns what is recorded. */
  async refuse(request: SolanaRequest, reason: string): Promise<SolanaTransactionRecord> {
    const now = this.ctx.clock.now();
    const refusal: SolanaTransactionRecord = {
      ...request,
      status: "rejected",
      reason,
      attempts: [],
      landed: null,
      feeLamports: null,
      created: now,
      updated: now,
    };
    return this.ctx.transaction(async (tx) => ((await tx.insertTransaction(refusal)) ? refusal : (await tx.getTransaction(request.transferId))!));
  }

  /**
   * Where a transfer stands: `processed` and `confirmed` are `included`, `finalized` is `final`
   * (recorded, with what the fee payer paid); a transaction a fork dropped is `pending` again and
   * re-sent while its blockhash lives; one whose blockhash expired unlanded is signed anew.
   * `known`: statuses already asked (many transfers' in one call), by signature.
   */
  async status(record: SolanaTransactionRecord, known?: ReadonlyMap<string, SignatureStatus | null>): Promise<TransferStatus & { feeLamports?: bigint }> {
    const ctx = this.ctx;
    if (record.status === "rejected") return { confirmations: 0, finality: "pending", failure: record.reason };
    const first = record.attempts[0]!.signature;
    const signatures = record.attempts.map((a) => a.signature);
    const statuses = known && signatures.every((s) => known.has(s)) ? signatures.map((s) => known.get(s)!) : await ctx.rpc.statuses(signatures);
    const i = statuses.findIndex((s) => s !== null);
    if (i >= 0) {
      const s = statuses[i]!;
      const sig = record.attempts[i]!.signature;
      const final = s.confirmationStatus === "finalized";
      const failure = s.err === null ? null : `transaction failed: ${describe(s.err)}`;
      let feeLamports: bigint | undefined;
      if (final) feeLamports = await this.settle(record, sig, failure);
      return {
        confirmations: final ? ctx.finalityConfirmations : Math.min(s.confirmations ?? 0, ctx.finalityConfirmations - 1),
        finality: final ? "final" : "included",
        failure: final ? failure : null,
        ...(sig !== first ? { txHash: sig } : {}),
        ...(feeLamports !== undefined && failure === null ? { feeLamports } : {}),
      };
    }
    if (record.status !== "signed") {
      // recorded final, but the node knows none of its attempts: a fork deeper than finality
      return { confirmations: 0, finality: "pending", failure: record.status === "failed" ? record.reason : null };
    }
    const latest = record.attempts.at(-1)!;
    const finalizedHeight = await ctx.rpc.blockHeight("finalized");
    if (finalizedHeight > BigInt(latest.lastValidBlockHeight)) await this.resign(record);
    else await this.push(latest.raw); // lost on the way, or dropped with a fork: the same bytes again
    return { confirmations: 0, finality: "pending", failure: null };
  }

  /** Sends signed bytes; whatever the node answers, `status` decides what happened. */
  async push(raw: string): Promise<void> {
    try {
      await this.ctx.rpc.send(raw as Base64EncodedWireTransaction);
    } catch {
      // unreachable, or refused at once: `status` sorts it out
    }
  }

  private async resend(record: SolanaTransactionRecord): Promise<SolanaTransactionRecord> {
    if (record.status === "signed") await this.push(record.attempts.at(-1)!.raw);
    return record;
  }

  /** The plan with its compute-unit limit from a simulation and a priority fee from the node's recent ones. */
  private async priced(plan: SolanaPlan): Promise<SolanaPlan> {
    const ctx = this.ctx;
    const hot = await ctx.hotWallet();
    const writable = plan.type === "sol" ? [plan.from, plan.to] : [plan.source, plan.destination];
    const recent = (await ctx.rpc.recentPriorityFees(writable)).filter((f) => f > 0n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    let price = recent.length > 0 ? recent[Math.floor(recent.length * 0.75)]! : 0n; // the 75th percentile
    if (price < ctx.priorityFee.min) price = ctx.priorityFee.min;
    if (price > ctx.priorityFee.max) price = ctx.priorityFee.max;
    const probe = { ...plan, computeUnits: MAX_COMPUTE_UNITS, microLamports: price.toString() };
    const lifetime = await ctx.rpc.latestBlockhash("confirmed");
    const { wire } = await buildTransaction(probe, hot, lifetime, null);
    const units = await ctx.rpc.simulate(wire);
    const limit = Math.min(MAX_COMPUTE_UNITS, Math.max(Math.ceil((units * UNIT_MARGIN_PERCENT) / 100), units + UNIT_MARGIN_MIN));
    return { ...probe, computeUnits: limit };
  }

  private async sign(request: Pick<SolanaRequest, "plan" | "signers">, lifetime: { blockhash: string; lastValidBlockHeight: bigint }): Promise<SolanaAttempt> {
    const ctx = this.ctx;
    const keys = new Map<string, number>();
    for (const index of request.signers) keys.set(await ctx.signer.address(index), index);
    const hot = await ctx.hotWallet();
    const { wire, signature } = await buildTransaction(request.plan, hot, lifetime, async (signer, message) => {
      const index = keys.get(signer);
      if (index === undefined) throw new Error(`no key signs for ${signer}`);
      return ctx.signer.sign(index, message);
    });
    return { signature, raw: wire, lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(), signedAt: ctx.clock.now() };
  }

  /** Signs the same plan with a fresh blockhash (the last attempt expired unlanded), saves it, sends it. */
  private async resign(record: SolanaTransactionRecord): Promise<void> {
    const ctx = this.ctx;
    const lifetime = await ctx.rpc.latestBlockhash("confirmed");
    const attempt = await this.sign(record, lifetime);
    const updated = await ctx.transaction(async (tx) => {
      const stored = await tx.getTransaction(record.transferId, true);
      // another process signed again or settled it meanwhile
      if (!stored || stored.status !== "signed" || stored.attempts.length !== record.attempts.length) return null;
      const next = { ...stored, attempts: [...stored.attempts, attempt], updated: ctx.clock.now() };
      await tx.putTransaction(next);
      return next;
    });
    if (updated) {
      await this.push(attempt.raw);
      ctx.report({ type: "transaction_rescued", chain: ctx.chain, action: "replaced" });
    }
  }

  /** Records the outcome once finalized; answers what the fee payer paid beyond the transfer itself. */
  private async settle(record: SolanaTransactionRecord, signature: string, failure: string | null): Promise<bigint | undefined> {
    const ctx = this.ctx;
    if (record.status !== "signed") return record.feeLamports === null ? undefined : BigInt(record.feeLamports);
    const landed = await ctx.rpc.transaction(signature, "finalized");
    const feeLamports = landed ? feePayerPaid(landed, record, await ctx.hotWallet(), failure) : null;
    await ctx.transaction(async (tx) => {
      const stored = await tx.getTransaction(record.transferId, true);
      if (!stored || stored.status !== "signed") return;
      await tx.putTransaction({
        ...stored,
        status: failure ? "failed" : "final",
        reason: failure,
        landed: signature,
        feeLamports: feeLamports === null ? null : feeLamports.toString(),
        updated: ctx.clock.now(),
      });
    });
    return feeLamports ?? undefined;
  }
}

/** A landed transaction as `SolanaRpc.transaction` reads it. */
type LandedTransaction = NonNullable<Awaited<ReturnType<SolanaRpc["transaction"]>>>;

/**
 * What the fee payer (the hot wallet) paid for a landed transaction of the adapter's: the fall of
 * its lamports, less the SOL the transfer itself moved out of it (plus what it moved into it):
 * the fees, and the rent of accounts it created. Null when the hot wallet is not among its keys.
 */
export function feePayerPaid(landed: LandedTransaction, record: Pick<SolanaTransactionRecord, "plan">, hot: string, failure: string | null): bigint | null {
  const at = landed.keys.indexOf(hot);
  if (at < 0) return null;
  let spent = landed.pre[at]! - landed.post[at]!;
  if (failure === null && record.plan.type === "sol") {
    if (record.plan.from === hot) spent -= BigInt(record.plan.lamports);
    if (record.plan.to === hot) spent += BigInt(record.plan.lamports);
  }
  return spent;
}

import type { SolanaContext } from "./solana-context";
import type { SolanaSender } from "./solana-sender";
import type { SolanaDepositRecord, SolanaPlan } from "./solana-state";
import { associatedTokenAccount } from "./solana-addresses";

/** Sweeps started per call at most. */
const SWEEPS_PER_RUN = 50;

/**
 * Moves final deposits from the per-intent addresses to the hot wallet, one transaction per
 * deposit under the id `sweep:<deposit id>`, made once by the sender like a payout. The hot
 * wallet is the fee payer (a deposit address never needs SOL of its own) and the deposit key
 * signs as the owner of what moves. A sweep changes no account's balance: the deposit was the
 * operator's custody before and after.
 */
export class SolanaSweeps {
  constructor(
    private readonly ctx: SolanaContext,
    private readonly sender: SolanaSender,
  ) {}

  async run(): Promise<{ pending: boolean }> {
    const ctx = this.ctx;
    const due = await ctx.transaction(async (tx) => tx.getDeposits(await tx.dueSweepIds(SWEEPS_PER_RUN)));
    for (const d of due) await this.start(d);
    const inFlight = await ctx.transaction((tx) => tx.listSweepsInFlight());
    let pending = due.length === SWEEPS_PER_RUN;
    for (const id of inFlight) {
      const deposit = await ctx.transaction((tx) => tx.getDeposit(id));
      const record = deposit?.sweep ? await ctx.transaction((tx) => tx.getTransaction(deposit.sweep!)) : undefined;
      if (!deposit || !record) continue;
      const status = await this.sender.status(record);
      const outcome = status.failure !== null ? "failed" : status.finality === "final" ? "final" : null;
      if (outcome === null) {
        pending = true;
        continue;
      }
      await ctx.transaction(async (tx) => {
        const stored = await tx.getDeposit(id);
        if (stored && stored.swept === null) await tx.finishSweep({ ...stored, swept: outcome });
      });
    }
    return { pending };
  }

  private async start(d: SolanaDepositRecord): Promise<void> {
    const ctx = this.ctx;
    const hot = await ctx.hotWallet();
    let plan: SolanaPlan;
    if (d.asset === ctx.nativeAsset) {
      plan = { type: "sol", from: d.address, to: hot, lamports: d.amount, computeUnits: 0, microLamports: "0" };
    } else {
      const token = ctx.tokens.get(d.asset);
      if (!token) return;
      const destination = await associatedTokenAccount(hot, token.mint);
      plan = {
        type: "token",
        mint: token.mint,
        decimals: token.decimals,
        owner: d.address,
        source: d.account,
        destinationOwner: hot,
        destination,
        createDestination: !(await ctx.rpc.accountExists(destination, "confirmed")),
        amount: d.amount,
        computeUnits: 0,
        microLamports: "0",
      };
    }
    const transferId = `sweep:${d.id}`;
    await ctx.transaction(async (tx) => {
      const stored = await tx.getDeposit(d.id);
      if (stored && stored.sweep === null) await tx.startSweep({ ...stored, sweep: transferId });
    });
    await this.sender.send({ transferId, kind: "sweep", asset: d.asset, amount: d.amount, to: hot, signers: [0, d.keyIndex], plan });
  }
}

import type { ChainHoldings, HoldingsRequest } from "../../../src/ports/public";
import { associatedTokenAccount } from "./solana-addresses";
import type { SolanaContext } from "./solana-context";
import type { SignatureStatus } from "./solana-rpc";
import { feePayerPaid } from "./solana-sender";
import type { SolanaTransactionRecord } from "./solana-state";

/** Tries of a reading whose calls came from slots between which the adapter's own accounts moved. */
const READS = 3;

/** A transaction of the adapter's as of the reading's slot. */
interface AtSlot {
  record: SolanaTransactionRecord;
  /** The signature that landed at or below the slot, if one did. */
  landed: string | null;
  succeeded: boolean;
}

/**
 * What the engine's accounts on Solana hold of one asset, read at one slot
 * (`ChainAdapter.holdings`, docs/reconciliation.md): the hot wallet's account of the asset (the
 * wallet itself for SOL, its ATA for a token) and every watched deposit account of the asset, in
 * `getMultipleAccounts` calls at `confirmed` (100 accounts a call, each call at the node's slot of
 * the moment: a reading is taken as of the highest when nothing the adapter knows of, its own
 * transactions or the deposits it read, landed between the lowest and the highest; else it is
 * read again). Transactions count
 * when they landed at or below it: what the hot wallet paid (fees, and the rent of the accounts it
 * created) and whether the engine's unbooked legs were carried. Each deposit account's `expected`
 * is the deposits read on it less those swept out. Unknown transfers are the signatures of the hot
 * wallet's account, and of any deposit account holding more than expected, since the last
 * balanced reading, that are neither the adapter's own transactions nor deposits it read.
 */
export class SolanaHoldings {
  constructor(private readonly ctx: SolanaContext) {}

  async read(request: HoldingsRequest): Promise<ChainHoldings | null> {
    const ctx = this.ctx;
    const native = request.asset === ctx.nativeAsset;
    const token = ctx.tokens.get(request.asset);
    if (!native && !token) return null;
    const hot = await ctx.hotWallet();
    const hotAccount = native ? hot : await associatedTokenAccount(hot, token!.mint);
    const { watches, deposits, records } = await ctx.transaction(async (tx) => ({
      watches: (await tx.listWatches()).filter((w) => w.asset === request.asset),
      deposits: (await tx.listDeposits()).filter((d) => d.asset === request.asset),
      records: await tx.listTransactions(),
    }));
    const accounts = [hotAccount, ...watches.map((w) => w.account)];
    // what the adapter knows landed, by slot: between two calls' slots, a reading is not one snapshot
    const landedSlots = async () => {
      const own = records.filter((r) => r.status === "signed").flatMap((r) => r.attempts.map((a) => a.signature));
      const statuses = own.length ? await ctx.rpc.statuses(own) : [];
      return [...statuses.flatMap((st) => (st ? [st.slot] : [])), ...deposits.map((d) => d.slot)];
    };
    let read = await ctx.rpc.accountsAt(accounts, "confirmed");
    for (let i = 1; read.lowest < read.slot; i++) {
      const between = (await landedSlots()).some((s) => s > read.lowest && s <= read.slot);
      if (!between) break;
      if (i >= READS) throw new Error(`${ctx.chain}: the accounts kept moving while they were read; reading at the next run`);
      read = await ctx.rpc.accountsAt(accounts, "confirmed");
    }
    const slot = read.slot;
    const held = (i: number) => {
      const v = read.values[i];
      return v ? (native ? v.lamports : (v.tokenAmount ?? 0n)) : 0n;
    };
    const ours = await this.atSlot(records, slot);
    const byId = new Map(ours.map((t) => [t.record.transferId, t]));
    const feesPaid = native ? await this.feesPaid(ours, hot) : 0n;
    // per deposit account: the deposits read on it up to the slot that no landed sweep moved out
    const expectedOn = new Map<string, bigint>();
    for (const d of deposits) {
      if (d.status === "reverted" || d.slot > slot || (d.sweep !== null && byId.get(d.sweep)?.succeeded)) continue;
      expectedOn.set(d.account, (expectedOn.get(d.account) ?? 0n) + BigInt(d.amount));
    }
    const depositAddresses: ChainHoldings["depositAddresses"] = [];
    const excess: typeof watches = [];
    watches.forEach((w, i) => {
      const amount = held(i + 1);
      if (amount === 0n) return;
      const expected = expectedOn.get(w.account) ?? 0n;
      depositAddresses.push({ address: w.owner, amount, expected });
      if (amount > expected) excess.push(w);
    });
    const unbooked = new Set(request.unbooked);
    const unknownTransfers: ChainHoldings["unknownTransfers"] = [];
    for (const { account, owner } of [{ account: hotAccount, owner: hot }, ...excess]) {
      unknownTransfers.push(...(await this.unknownTransfers(account, owner, request.since === null ? null : Number(request.since), slot)));
    }
    return {
      at: String(slot),
      hotWallet: { address: hot, amount: held(0) },
      depositAddresses,
      feesPaid,
      carried: ours.filter((t) => t.succeeded && unbooked.has(t.record.transferId)).map((t) => t.record.transferId),
      unknownTransfers,
    };
  }

  /** Each transaction of the adapter's as of `slot`: settled ones landed long before; those in flight by their statuses. */
  private async atSlot(records: readonly SolanaTransactionRecord[], slot: number): Promise<AtSlot[]> {
    const inFlight = records.filter((r) => r.status === "signed");
    const signatures = inFlight.flatMap((r) => r.attempts.map((a) => a.signature));
    const statuses = signatures.length ? await this.ctx.rpc.statuses(signatures) : [];
    const status = new Map<string, SignatureStatus | null>(signatures.map((s, i) => [s, statuses[i]!]));
    return records.map((record) => {
      if (record.status === "final" || record.status === "failed") {
        return { record, landed: record.landed, succeeded: record.status === "final" };
      }
      if (record.status !== "signed") return { record, landed: null, succeeded: false };
      for (const a of record.attempts) {
        const s = status.get(a.signature);
        if (s && s.slot <= slot) return { record, landed: a.signature, succeeded: s.err === null };
      }
      return { record, landed: null, succeeded: false };
    });
  }

  /** What the hot wallet paid for the adapter's landed transactions: recorded once final, read from the chain before. */
  private async feesPaid(ours: readonly AtSlot[], hot: string): Promise<bigint> {
    let paid = 0n;
    for (const t of ours) {
      if (t.landed === null) continue;
      if (t.record.status !== "signed") {
        paid += BigInt(t.record.feeLamports ?? "0");
        continue;
      }
      const landed = await this.ctx.rpc.transaction(t.landed, "confirmed");
      if (landed) paid += feePayerPaid(landed, t.record, hot, landed.err === null ? null : "failed") ?? 0n;
    }
    return paid;
  }

  /** Transactions touching `account` after slot `since` and at or below `slot` that the adapter neither made nor read as a deposit. */
  private async unknownTransfers(account: string, owner: string, since: number | null, slot: number): Promise<ChainHoldings["unknownTransfers"]> {
    const ctx = this.ctx;
    const listed = (await ctx.rpc.signaturesFor(account, null)).filter((s) => s.err === null && s.slot <= slot && (since === null || s.slot > since));
    const found: ChainHoldings["unknownTransfers"] = [];
    for (const s of listed) {
      const known = await ctx.transaction(async (tx) => (await tx.isOurs(s.signature)) || (await tx.latestDepositOf(s.signature, account)) !== undefined);
      if (known) continue;
      const landed = await ctx.rpc.transaction(s.signature, "confirmed");
      if (!landed) continue;
      const at = landed.keys.indexOf(account);
      if (at < 0) continue;
      const amount =
        landed.postTokens.has(account) || landed.preTokens.has(account)
          ? (landed.postTokens.get(account)?.amount ?? 0n) - (landed.preTokens.get(account)?.amount ?? 0n)
          : landed.post[at]! - landed.pre[at]!;
      if (amount !== 0n) found.push({ txHash: s.signature, address: owner, amount, at: String(s.slot) });
    }
    return found;
  }
}

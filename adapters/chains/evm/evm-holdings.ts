import type { ChainHoldings, HoldingsRequest } from "../../../src/ports/public";
import type { EvmContext } from "./evm-context";
import { TRANSFER_TOPIC, type EvmDeposits, tokenDepositId } from "./evm-deposits";
import type { EvmTransactionRecord } from "./evm-state";

/** How far back explanations look when nothing balanced yet (blocks). */
const FIRST_SEARCH_BLOCKS = 5_000;
/** Blocks per `eth_getLogs` call of the search for unknown transfers. */
const LOG_RANGE = 2_000;
/** Reads of the deposit reader a reading makes at most to catch it up with the head (500 blocks each). */
const CATCH_UP_READS = 20;
/** Balance calls a reading keeps in flight at once (one per deposit address). */
const BALANCE_CALLS_AT_ONCE = 16;

/** A transaction of the adapter's as the chain has it at the reading's block. */
interface Carried {
  record: EvmTransactionRecord;
  /** The chain carried it (mined at or below the block): its gas was paid. */
  mined: boolean;
  /** Mined without reverting: its value moved. */
  succeeded: boolean;
  gasCost: bigint;
  txHash: string | null;
}

/**
 * What the wallet's addresses hold of one asset on one chain, read from the node at one block
 * (`ChainAdapter.holdings`, docs/reconciliation.md): the scan tip of the deposit reader, so every
 * deposit up to it was read (the engine polls first). Balances are asked at that block; what the
 * adapter's own transactions paid for gas, and whether the engine's unbooked legs were carried,
 * are read from their receipts, counting only those mined at or below it. Each deposit address's
 * `expected` is the token deposits read on it less the sweeps moved out of it (null for the
 * native asset: gas top-ups and sweeps' gas leave dust the adapter does not follow). Unknown
 * transfers are the token's `Transfer` logs into the hot wallet or an address holding more than
 * expected, and out of the hot wallet, that no transaction or deposit of the adapter accounts for
 * (the native asset moves without logs: an outside transfer of ETH shows as a difference only).
 *
 * A reading costs a balance call per derived address and a scan of the adapter's records of the
 * chain: fine to many thousands of intents (docs/reconciliation.md says what scales it further).
 */
export class EvmHoldings {
  constructor(
    private readonly ctx: EvmContext,
    private readonly deposits: EvmDeposits,
  ) {}

  async read(request: HoldingsRequest): Promise<ChainHoldings | null> {
    const ctx = this.ctx;
    const native = request.asset === ctx.nativeAsset;
    const token = ctx.tokens.get(request.asset);
    if (!native && !token) return null;
    const hot = await ctx.hotWallet();
    const at = await this.readerNearHead();
    const { addresses, records, deposits } = await ctx.transaction(async (tx) => ({
      addresses: await tx.listAddresses(hot),
      records: await tx.listTransactions(ctx.chain),
      deposits: (await tx.listDeposits(ctx.chain, { minBlock: 0 })).filter((d) => d.asset === request.asset),
    }));
    const balanceOf = (address: string) => (native ? ctx.rpc.balance(address, at) : ctx.rpc.tokenBalance(token!, address, at));
    const carried = await Promise.all(records.map((r) => this.carried(r, at)));
    const feesPaid = native ? carried.reduce((sum, c) => sum + (c.mined ? c.gasCost : 0n), 0n) : 0n;
    const unbooked = new Set(request.unbooked);
    const amounts: bigint[] = [];
    for (let i = 0; i < addresses.length; i += BALANCE_CALLS_AT_ONCE) {
      amounts.push(...(await Promise.all(addresses.slice(i, i + BALANCE_CALLS_AT_ONCE).map((a) => balanceOf(a.address)))));
    }
    // per address (lowercase): the token deposits read on it up to the block, less the sweeps out of it
    const expectedOn = new Map<string, bigint>();
    const add = (address: string, amount: bigint) => expectedOn.set(address.toLowerCase(), (expectedOn.get(address.toLowerCase()) ?? 0n) + amount);
    for (const d of deposits) if (d.revertedAt === null && d.blockNumber <= at) add(d.address, d.amount);
    for (const c of carried) if (c.succeeded && c.record.kind === "sweep" && c.record.asset === request.asset) add(c.record.from, -c.record.amount);
    const depositAddresses: ChainHoldings["depositAddresses"] = [];
    for (const [i, a] of addresses.entries()) {
      const amount = amounts[i]!;
      if (amount === 0n) continue;
      depositAddresses.push({ address: a.address, amount, expected: native ? null : (expectedOn.get(a.address.toLowerCase()) ?? 0n) });
    }
    const hotAmount = await balanceOf(hot);
    const excess = depositAddresses.filter((d) => d.expected !== null && d.amount > d.expected).map((d) => d.address);
    const unknownTransfers = token ? await this.unknownTransfers(token, hot, excess, request.since, at, carried, deposits) : [];
    return {
      at: String(at),
      hotWallet: { address: hot, amount: hotAmount },
      depositAddresses,
      feesPaid,
      carried: carried.filter((c) => c.succeeded && unbooked.has(c.record.transferId)).map((c) => c.record.transferId),
      unknownTransfers,
    };
  }

  /**
   * The deposit reader's block, caught up to within the finality depth of the head (the reader
   * stops while no intent waits, and reads 500 blocks a call): the reading is at a block every
   * deposit to which was read, whose settled transactions are all at or below it, and whose state
   * a full node still answers. Throws when the reader cannot catch up now (the next run tries).
   */
  private async readerNearHead(): Promise<number> {
    const ctx = this.ctx;
    for (let i = 0; ; i++) {
      const [tip, head] = await Promise.all([ctx.transaction((tx) => tx.getScanTip(ctx.chain)), ctx.rpc.blockNumber()]);
      if (tip !== null && head - tip.number <= ctx.finalityConfirmations) return tip.number;
      if (tip === null && i > 0) return head; // no address to read deposits of: nothing to catch up
      if (i >= CATCH_UP_READS)
        throw new Error(`${ctx.chain}: the deposit reader is ${head - (tip?.number ?? 0)} blocks behind the head; reading when it has caught up`);
      await this.deposits.read(tip === null ? null : String(tip.number));
    }
  }

  /** Whether the chain carried a transaction of the adapter's at or below block `at`, and its gas. */
  private async carried(record: EvmTransactionRecord, at: number): Promise<Carried> {
    const none: Carried = { record, mined: false, succeeded: false, gasCost: 0n, txHash: null };
    if (record.status === "rejected" || record.attempts.length === 0) return none;
    if (record.status === "final" || (record.status === "failed" && record.gasCost !== null)) {
      // settled at finality: mined well below any block read since
      return { record, mined: true, succeeded: record.status === "final", gasCost: record.gasCost ?? 0n, txHash: record.minedHash };
    }
    if (record.status === "failed") return none; // dropped: its nonce went to another transaction
    for (const attempt of [...record.attempts].reverse()) {
      const receipt = await this.ctx.rpc.receipt(attempt.txHash);
      if (!receipt || receipt.blockNumber > at) continue;
      return {
        record,
        mined: true,
        succeeded: receipt.status === "success",
        gasCost: receipt.fee,
        txHash: attempt.txHash,
      };
    }
    return none;
  }

  /** `Transfer` logs of `token` into the hot wallet or `watched`, or out of the hot wallet, in (since, at], that the adapter does not account for. */
  private async unknownTransfers(
    token: string,
    hot: string,
    watched: readonly string[],
    since: string | null,
    at: number,
    carried: readonly Carried[],
    deposits: readonly { transferId: string }[],
  ): Promise<ChainHoldings["unknownTransfers"]> {
    const ctx = this.ctx;
    const from = Math.max(0, since === null ? at - FIRST_SEARCH_BLOCKS : Number(since) + 1);
    const ours = new Set(carried.flatMap((c) => c.record.attempts.map((a) => a.txHash.toLowerCase())));
    const read = new Set(deposits.map((d) => d.transferId));
    const topic = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, "0")}`;
    const found: ChainHoldings["unknownTransfers"] = [];
    for (let start = from; start <= at; start += LOG_RANGE) {
      const end = Math.min(at, start + LOG_RANGE - 1);
      const range = { fromBlock: start, toBlock: end, address: [token] };
      const into = await ctx.rpc.logs({ ...range, topics: [TRANSFER_TOPIC, null, [hot, ...watched].map(topic)] });
      const out = await ctx.rpc.logs({ ...range, topics: [TRANSFER_TOPIC, topic(hot)] });
      for (const log of [...into, ...out]) {
        if (log.removed || ours.has(log.transactionHash.toLowerCase()) || read.has(tokenDepositId(ctx.chain, log.blockHash, log.logIndex))) continue;
        const to = `0x${log.topics[2]!.slice(-40)}`.toLowerCase();
        const fromHot = `0x${log.topics[1]!.slice(-40)}`.toLowerCase() === hot.toLowerCase();
        const amount = BigInt(log.data);
        if (fromHot && to === hot.toLowerCase()) continue; // to itself: nothing moved
        found.push({
          txHash: log.transactionHash,
          address: fromHot ? hot : (watched.find((w) => w.toLowerCase() === to) ?? hot),
          amount: fromHot ? -amount : amount,
          at: String(log.blockNumber),
        });
      }
    }
    return found;
  }
}

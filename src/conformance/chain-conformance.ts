import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChainAdapter, InboundTransfer, TransferStatus } from "../ports/chain";
import type { ChainObservation } from "../ports/domain-observations";

/**
 * What the chain suite drives: a fresh adapter on a chain it controls. Payments, blocks and
 * reorganisations come from the harness (a simulator's controls, or a test node's RPC), so the
 * suite sees the adapter only through the chain port.
 */
export interface ChainHarness {
  adapter: ChainAdapter;
  /** The chain under test, one of `adapter.chains`. */
  chain: string;
  /** An asset the adapter sends and receives on `chain`; the hot wallet holds plenty of it. */
  asset: string;
  /** A small amount of `asset` (base units) for payouts and deposits. */
  amount: bigint;
  /** A fresh recipient address each call (no balance yet). */
  recipient(): Promise<string>;
  /** Mines `blocks` blocks (or lets that much chain time pass). */
  mine(blocks: number): Promise<void>;
  /** A payer sends `amount` of `asset` to `address`; it is included in the next block. */
  pay(address: string, amount: bigint): Promise<void>;
  /**
   * A payer sends one transaction with several outputs of `asset`, in the order given (an
   * exchange's batched withdrawal, a multisend contract), the same address possibly more than
   * once; it is included in the next block.
   */
  payMany(outputs: readonly { address: string; amount: bigint }[]): Promise<void>;
  /**
   * A reorganisation: the block of the last `pay` and every block after it are replaced by a
   * longer branch without that payment. Optional; the reorg test is skipped without it.
   */
  reorgLastPayment?(): Promise<void>;
  /** What `address` holds of `asset` on chain. Optional; without it the suite follows `liquidity`. */
  balanceOf?(address: string): Promise<bigint>;
  /** Makes the next broadcast fail: refused at once, or mined and reverted. */
  failNext(): Promise<void>;
  close(): Promise<void>;
}

export interface ChainConformanceOptions {
  name: string;
  /** A fresh adapter and chain each call. */
  factory: () => Promise<ChainHarness>;
}

/**
 * The chain conformance suite (`payrail/conformance`): every chain adapter must pass it, the
 * simulated chains and the EVM adapter included. It checks what the engine relies on:
 * broadcast idempotency (the same id, the same transaction, sent once), finality progress
 * (pending → included → final at the chain's confirmations, never backwards), failures (a
 * refusal, or a failure that never turns final), deposits seen once under a stable id and
 * final after the confirmations, every output of a transaction paying several deposit addresses
 * seen (each exactly once, by concurrent readers too), what its addresses hold for reconciliation
 * (when it reports holdings), a reorganisation reverting a deposit, and fee estimates.
 */
export function chainConformance(options: ChainConformanceOptions): void {
  describe(`chain conformance: ${options.name}`, () => {
    let h: ChainHarness;
    beforeEach(async () => {
      h = await options.factory();
    });
    afterEach(async () => {
      await h.close();
    });

    /** Asks for a transfer's status after each block until it is final or failed. */
    const follow = async (txHash: string, blocks: number): Promise<TransferStatus[]> => {
      const seen: TransferStatus[] = [await h.adapter.transferStatus(h.chain, txHash)];
      for (let i = 0; i < blocks && seen.at(-1)!.finality !== "final" && seen.at(-1)!.failure === null; i++) {
        await h.mine(1);
        seen.push(await h.adapter.transferStatus(h.chain, txHash));
      }
      return seen;
    };

    /** Reads deposits through the cursor until `done` holds (or a bound on reads). */
    const readUntil = async (
      state: { cursor: string | null; seen: InboundTransfer[] },
      done: (latest: Map<string, InboundTransfer>) => boolean,
      blocksBetween = 1,
    ): Promise<Map<string, InboundTransfer>> => {
      const latest = new Map<string, InboundTransfer>();
      for (const t of state.seen) latest.set(t.transferId, t);
      for (let i = 0; i < 80; i++) {
        const { transfers, cursor } = await h.adapter.inboundTransfers(h.chain, state.cursor);
        expect(typeof cursor).toBe("string");
        state.cursor = cursor;
        for (const t of transfers) {
          state.seen.push(t);
          latest.set(t.transferId, t);
        }
        if (done(latest)) return latest;
        await h.mine(blocksBetween);
      }
      throw new Error("deposits did not reach the expected state within 80 reads");
    };

    it("describes the chain: a block time and the confirmations to finality", async () => {
      const info = await h.adapter.describe(h.chain);
      expect(info.blockTimeMs).toBeGreaterThan(0);
      expect(Number.isInteger(info.confirmationsToFinality) && info.confirmationsToFinality >= 1).toBe(true);
    });

    it("estimates fees: a schedule in base units of the asset, and liquidity to send from", async () => {
      const answer = await h.adapter.feeSchedule(h.chain, h.asset);
      expect(answer).not.toBeNull();
      if (answer && "unavailable" in answer) throw new Error(`the harness's asset has no fee schedule: ${answer.unavailable}`);
      const schedule = answer;
      expect(typeof schedule!.fixed).toBe("bigint");
      expect(schedule!.fixed >= 0n && schedule!.proportionalPpm >= 0n).toBe(true);
      expect(schedule!.perTransferCap === null || schedule!.perTransferCap > 0n).toBe(true);
      const liquidity = await h.adapter.liquidity(h.chain, h.asset);
      expect(typeof liquidity).toBe("bigint");
      expect(liquidity).toBeGreaterThanOrEqual(h.amount * 3n);
    });

    it("broadcasts once per transfer id: repeated and concurrent calls answer the same transaction, and value moves once", async () => {
      const to = await h.recipient();
      const transfer = { transferId: "leg_conformance_once", chain: h.chain, asset: h.asset, amount: h.amount, to };
      const before = h.balanceOf ? await h.balanceOf(to) : await h.adapter.liquidity(h.chain, h.asset);
      const answers = await Promise.all([h.adapter.broadcast(transfer), h.adapter.broadcast(transfer)]);
      answers.push(await h.adapter.broadcast(transfer));
      expect(answers[0]).toHaveProperty("txHash");
      for (const a of answers) expect(a).toEqual(answers[0]);
      const { confirmationsToFinality } = await h.adapter.describe(h.chain);
      const statuses = await follow((answers[0] as { txHash: string }).txHash, confirmationsToFinality + 2);
      expect(statuses.at(-1)).toMatchObject({ finality: "final", failure: null });
      expect(await h.adapter.broadcast(transfer)).toEqual(answers[0]);
      await h.mine(1);
      if (h.balanceOf) expect((await h.balanceOf(to)) - before).toBe(h.amount);
      else expect(before - (await h.adapter.liquidity(h.chain, h.asset))).toBe(h.amount);
    });

    it("answers broadcastMany and transferStatusMany (when it has them) as the one-at-a-time calls would, in order", async (ctx) => {
      const { broadcastMany, transferStatusMany } = h.adapter;
      if (!broadcastMany && !transferStatusMany) return ctx.skip();
      const transfers = await Promise.all(
        ["a", "b", "c"].map(async (n) => ({
          transferId: `leg_conformance_many_${n}`,
          chain: h.chain,
          asset: h.asset,
          amount: h.amount,
          to: await h.recipient(),
        })),
      );
      const first = await h.adapter.broadcast(transfers[1]!);
      const before = await h.adapter.liquidity(h.chain, h.asset);
      const answers = broadcastMany
        ? await broadcastMany.call(h.adapter, [transfers[0]!, transfers[1]!, transfers[2]!, transfers[0]!])
        : await Promise.all([transfers[0]!, transfers[1]!, transfers[2]!, transfers[0]!].map((t) => h.adapter.broadcast(t)));
      expect(answers).toHaveLength(4);
      expect(answers[1]).toEqual(first); // sent before: the first outcome again
      expect(answers[3]).toEqual(answers[0]); // a repeat within the call: the same outcome
      for (const [i, t] of transfers.entries()) expect(await h.adapter.broadcast(t)).toEqual(answers[i]);
      const hashes = answers.slice(0, 3).map((a) => {
        if (!("txHash" in a)) throw new Error(`refused: ${a.rejected}`);
        return a.txHash;
      });
      if (!h.balanceOf) expect(before - (await h.adapter.liquidity(h.chain, h.asset))).toBe(h.amount * 2n);
      const { confirmationsToFinality } = await h.adapter.describe(h.chain);
      for (let block = 0; block <= confirmationsToFinality + 1; block++) {
        const many = transferStatusMany
          ? await transferStatusMany.call(h.adapter, h.chain, hashes)
          : await Promise.all(hashes.map((x) => h.adapter.transferStatus(h.chain, x)));
        const one = await Promise.all(hashes.map((x) => h.adapter.transferStatus(h.chain, x)));
        expect(many.map((m) => ({ finality: m.finality, failure: m.failure }))).toEqual(one.map((m) => ({ finality: m.finality, failure: m.failure })));
        await h.mine(1);
      }
      const last = await Promise.all(hashes.map((x) => h.adapter.transferStatus(h.chain, x)));
      for (const s of last) expect(s).toMatchObject({ finality: "final", failure: null });
    });

    it("reports finality in order: pending or included, then final at the confirmations, never backwards", async () => {
      const to = await h.recipient();
      const sent = await h.adapter.broadcast({ transferId: "leg_conformance_finality", chain: h.chain, asset: h.asset, amount: h.amount, to });
      if (!("txHash" in sent)) throw new Error(`refused: ${sent.rejected}`);
      const { confirmationsToFinality } = await h.adapter.describe(h.chain);
      const statuses = await follow(sent.txHash, confirmationsToFinality + 2);
      const rank = { pending: 0, included: 1, final: 2, reverted: 3 } as const;
      for (let i = 1; i < statuses.length; i++) {
        expect(rank[statuses[i]!.finality]).toBeGreaterThanOrEqual(rank[statuses[i - 1]!.finality]);
        expect(statuses[i]!.confirmations).toBeGreaterThanOrEqual(statuses[i - 1]!.confirmations);
      }
      for (const s of statuses) {
        expect(s.failure).toBeNull();
        if (s.finality === "final") expect(s.confirmations).toBeGreaterThanOrEqual(confirmationsToFinality);
        else expect(s.confirmations).toBeLessThan(confirmationsToFinality);
      }
      expect(statuses.at(-1)!.finality).toBe("final");
      expect(statuses.some((s) => s.finality !== "final")).toBe(true);
    });

    it("fails a transfer the chain will not carry: refused at once, or failed and never final", async () => {
      const to = await h.recipient();
      const before = h.balanceOf ? await h.balanceOf(to) : null;
      await h.failNext();
      const transfer = { transferId: "leg_conformance_failure", chain: h.chain, asset: h.asset, amount: h.amount, to };
      const sent = await h.adapter.broadcast(transfer);
      if ("rejected" in sent) {
        expect(sent.rejected.length).toBeGreaterThan(0);
        expect(await h.adapter.broadcast(transfer)).toEqual(sent); // the same refusal again
      } else {
        const { confirmationsToFinality } = await h.adapter.describe(h.chain);
        const statuses = await follow(sent.txHash, confirmationsToFinality + 2);
        expect(statuses.at(-1)!.failure).not.toBeNull();
        expect(statuses.some((s) => s.finality === "final" && s.failure === null)).toBe(false);
      }
      if (h.balanceOf) expect(await h.balanceOf(to)).toBe(before);
    });

    it("sees a deposit once under a stable id, exactly, at the address it issued, final after the confirmations", async () => {
      const address = await h.adapter.depositAddress(h.chain, h.asset, "pi_conformance_a");
      expect(await h.adapter.depositAddress(h.chain, h.asset, "pi_conformance_a")).toBe(address);
      expect(await h.adapter.depositAddress(h.chain, h.asset, "pi_conformance_b")).not.toBe(address);
      const state = { cursor: null as string | null, seen: [] as InboundTransfer[] };
      await readUntil(state, () => true);
      await h.pay(address, h.amount);
      const latest = await readUntil(state, (m) => [...m.values()].some((t) => t.address === address && t.finality === "final"));
      const mine = [...latest.values()].filter((t) => t.address === address);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ chain: h.chain, asset: h.asset, amount: h.amount, finality: "final" });
      const { confirmationsToFinality } = await h.adapter.describe(h.chain);
      expect(mine[0]!.confirmations).toBeGreaterThanOrEqual(confirmationsToFinality);
      for (const t of state.seen.filter((s) => s.address === address)) {
        expect(t.transferId).toBe(mine[0]!.transferId);
        if (t.finality === "final") expect(t.confirmations).toBeGreaterThanOrEqual(confirmationsToFinality);
      }
      // later reads bring nothing new about it
      await h.mine(2);
      await readUntil(state, () => true);
      expect(new Set(state.seen.filter((s) => s.address === address).map((t) => t.transferId)).size).toBe(1);
    });

    it("sees every output of one transaction that pays several deposit addresses, each exactly once, by concurrent readers too", async () => {
      const [a, b, c] = await Promise.all(["a", "b", "c"].map((n) => h.adapter.depositAddress(h.chain, h.asset, `pi_conformance_multi_${n}`)));
      const paid = new Map([
        [a!, h.amount * 4n],
        [b!, h.amount * 2n],
        [c!, h.amount + 1n],
      ]);
      const state = { cursor: null as string | null, seen: [] as InboundTransfer[] };
      await readUntil(state, () => true);
      // a batched withdrawal: two intents' addresses, one of them twice, and a third
      await h.payMany([
        { address: a!, amount: h.amount },
        { address: b!, amount: h.amount * 2n },
        { address: a!, amount: h.amount * 3n },
        { address: c!, amount: h.amount + 1n },
      ]);
      // two readers from the same cursor at once: the adapter must not let one hide an output from the other
      const racing = { cursor: state.cursor, seen: [] as InboundTransfer[] };
      const [first, second] = await Promise.all([h.adapter.inboundTransfers(h.chain, state.cursor), h.adapter.inboundTransfers(h.chain, racing.cursor)]);
      state.seen.push(...first.transfers);
      state.cursor = first.cursor;
      racing.seen.push(...second.transfers);
      racing.cursor = second.cursor;
      const finalAt = (m: Map<string, InboundTransfer>) =>
        [...paid.keys()].every((address) => {
          const mine = [...m.values()].filter((t) => t.address === address && t.finality === "final");
          return mine.reduce((sum, t) => sum + t.amount, 0n) === paid.get(address);
        });
      const latest = await readUntil(state, finalAt);
      const racer = await readUntil(racing, finalAt);
      for (const seen of [latest, racer]) {
        const outputs = [...seen.values()].filter((t) => paid.has(t.address));
        // each address is credited exactly what it was paid, all of it in one transaction
        for (const [address, amount] of paid) {
          const mine = outputs.filter((t) => t.address === address);
          expect(mine.length).toBeGreaterThanOrEqual(1);
          expect(mine.reduce((sum, t) => sum + t.amount, 0n)).toBe(amount);
          for (const t of mine) expect(t).toMatchObject({ chain: h.chain, asset: h.asset, finality: "final" });
        }
        expect(new Set(outputs.map((t) => t.txHash)).size).toBe(1);
      }
      // both readers name the outputs alike
      const ids = (m: Map<string, InboundTransfer>) =>
        [...m.values()]
          .filter((t) => paid.has(t.address))
          .map((t) => t.transferId)
          .sort();
      expect(ids(racer)).toEqual(ids(latest));
      // later reads, and a reader starting over, bring nothing new about them
      await h.mine(2);
      await readUntil(state, () => true);
      const fresh = await readUntil({ cursor: null, seen: [] }, () => true);
      expect(new Set(state.seen.filter((t) => paid.has(t.address)).map((t) => t.transferId)).size).toBe(ids(latest).length);
      for (const t of [...fresh.values()].filter((x) => paid.has(x.address))) expect(ids(latest)).toContain(t.transferId);
    });

    it("reports what its addresses hold, read from the chain, for reconciliation (when it has holdings)", async (ctx) => {
      const holdings = h.adapter.holdings?.bind(h.adapter);
      if (!holdings) return ctx.skip();
      const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
      const ask = async (unbooked: string[] = [], since: string | null = null) => {
        const answer = await holdings({ chain: h.chain, asset: h.asset, unbooked, since });
        if (!answer) throw new Error(`no holdings of ${h.asset} on ${h.chain}, the harness's own asset`);
        expect(typeof answer.at).toBe("string");
        expect(answer.feesPaid >= 0n).toBe(true);
        return answer;
      };
      const address = await h.adapter.depositAddress(h.chain, h.asset, "pi_conformance_holdings");
      const state = { cursor: null as string | null, seen: [] as InboundTransfer[] };
      await readUntil(state, () => true);
      const before = await ask();
      await h.pay(address, h.amount);
      await readUntil(state, (m) => [...m.values()].some((t) => same(t.address, address) && t.finality === "final"));
      // the deposit is on its address, and the adapter's records account for it
      const paid = await ask();
      const held = paid.depositAddresses.find((d) => same(d.address, address));
      expect(held?.amount).toBe(h.amount);
      if (held?.expected !== null) expect(held?.expected).toBe(h.amount);
      expect(paid.hotWallet.amount).toBe(before.hotWallet.amount);
      // a transfer the books would still hold reserved: carried once the chain has it, and out of the hot wallet
      const to = await h.recipient();
      const sent = await h.adapter.broadcast({ transferId: "leg_conformance_holdings", chain: h.chain, asset: h.asset, amount: h.amount, to });
      expect(sent).toHaveProperty("txHash");
      await h.mine(1);
      await readUntil(state, () => true); // the engine reads deposits before it asks, as here
      const after = await ask(["leg_conformance_holdings", "leg_conformance_never_sent"], paid.at);
      expect(after.carried).toEqual(["leg_conformance_holdings"]);
      expect(paid.hotWallet.amount - after.hotWallet.amount).toBe(h.amount);
      // since the reading before it, nothing moved that the adapter did not do itself
      expect(after.unknownTransfers).toEqual([]);
    });

    it("reverts a deposit a reorganisation removed", async (ctx) => {
      if (!h.reorgLastPayment) {
        ctx.skip("the harness cannot reorganise this chain (no reorgLastPayment)");
        return;
      }
      const address = await h.adapter.depositAddress(h.chain, h.asset, "pi_conformance_reorg");
      const state = { cursor: null as string | null, seen: [] as InboundTransfer[] };
      await readUntil(state, () => true);
      await h.pay(address, h.amount);
      await h.mine(1);
      const seen = await readUntil(state, (m) => [...m.values()].some((t) => t.address === address && t.finality === "included"));
      const id = [...seen.values()].find((t) => t.address === address)!.transferId;
      const reported: ChainObservation[] = [];
      h.adapter.observe?.((o) => reported.push(o));
      await h.reorgLastPayment();
      const after = await readUntil(state, (m) => m.get(id)?.finality === "reverted");
      expect(after.get(id)).toMatchObject({ finality: "reverted", confirmations: 0 });
      // an adapter that reports (`observe`) tells of the reorganisation, for the operator's metrics
      if (h.adapter.observe) expect(reported.filter((o) => o.type === "chain_reorg" && o.chain === h.chain).length).toBeGreaterThanOrEqual(1);
      for (const o of reported) {
        expect(o.chain).toBe(h.chain);
        if (o.type === "chain_head") expect(o.lastBlockRead).toBeLessThanOrEqual(o.head); // never read past the head
        if (o.type === "chain_reorg" && o.depth !== null) expect(o.depth).toBeGreaterThanOrEqual(1);
      }
      // it stays reverted: nothing on the new branch credits it again
      await h.mine(3);
      const later = await readUntil(state, () => true);
      expect(later.get(id)!.finality).toBe("reverted");
      expect([...later.values()].filter((t) => t.address === address && t.finality !== "reverted")).toEqual([]);
    });
  });
}

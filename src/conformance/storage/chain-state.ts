import { describe, expect, it } from "vitest";
import type { ChainDepositRecord, ChainSweepRecord, ChainTransactionRecord, StorageTx } from "../../ports/storage";
import { T0, type SuiteContext } from "./fixtures";

/**
 * `tx.chainState`: counters, signed transactions, derived addresses, the scan tip and block
 * hashes, deposits and sweeps (what stateful chain adapters keep).
 */
export function chainStateSuite(s: SuiteContext): void {
  const run = <T>(fn: (tx: StorageTx) => Promise<T>) => s.storage.transaction(fn);

  describe("chain state", () => {
    it("takes sequence numbers from the floor upwards, never twice, and gives back those of a rolled-back transaction", async () => {
      expect(await run((tx) => tx.chainState.takeSequence("nonce:base:0xa", 5))).toBe(5);
      expect(await run((tx) => tx.chainState.takeSequence("nonce:base:0xa", 0))).toBe(6);
      expect(await run((tx) => tx.chainState.takeSequence("nonce:base:0xa", 9))).toBe(9);
      expect(await run((tx) => tx.chainState.takeSequence("other", 1))).toBe(1);
      await run(async (tx) => {
        await tx.chainState.takeSequence("nonce:base:0xa", 0);
        throw new Error("rolled back");
      }).catch(() => undefined);
      expect(await run((tx) => tx.chainState.takeSequence("nonce:base:0xa", 0))).toBe(10);
      const many = await Promise.all(Array.from({ length: 12 }, () => run((tx) => tx.chainState.takeSequence("burst", 0))));
      expect([...many].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    });

    it("stores signed transactions, finds them by any attempt's hash, and lists the open ones", async () => {
      const first = transaction("leg_1", ["0xaa"], T0);
      expect(await run((tx) => tx.chainState.insertTransaction(first))).toBe(true);
      expect(await run((tx) => tx.chainState.insertTransaction({ ...first, status: "rejected", attempts: [attempt("0xdd")] }))).toBe(false);
      expect(await run((tx) => tx.chainState.findTransactionByHash("base", "0xdd"))).toBeNull();
      await run((tx) => tx.chainState.putTransaction(transaction("leg_2", ["0xcc"], T0 + 1, "final")));
      await run((tx) => tx.chainState.putTransaction(transaction("leg_3", [], T0 + 2, "rejected")));
      const replaced = { ...first, attempts: [...first.attempts, attempt("0xbb")], updated: T0 + 5 };
      await run((tx) => tx.chainState.putTransaction(replaced));
      expect(await run((tx) => tx.chainState.getTransaction("base", "leg_1", { lock: true }))).toEqual(replaced);
      expect(await run((tx) => tx.chainState.findTransactionByHash("base", "0xaa"))).toEqual(replaced);
      expect(await run((tx) => tx.chainState.findTransactionByHash("base", "0xbb"))).toEqual(replaced);
      expect(await run((tx) => tx.chainState.findTransactionByHash("polygon", "0xaa"))).toBeNull();
      expect(await run((tx) => tx.chainState.getTransaction("base", "leg_9"))).toBeNull();
      expect((await run((tx) => tx.chainState.listOpenTransactions("base", 10))).map((r) => r.transferId)).toEqual(["leg_1"]);
      await run((tx) => tx.chainState.putTransaction({ ...transaction("leg_5", ["0xee"], T0), nonce: 9 }));
      await run((tx) => tx.chainState.putTransaction({ ...transaction("leg_6", ["0xef"], T0), nonce: 8, from: "0xother" }));
      expect((await run((tx) => tx.chainState.listTransactionsFrom("base", "0xhot", 7))).map((r) => [r.transferId, r.nonce])).toEqual([
        ["leg_1", 7],
        ["leg_2", 7],
        ["leg_5", 9],
      ]);
      expect((await run((tx) => tx.chainState.listTransactionsFrom("base", "0xhot", 8))).map((r) => r.transferId)).toEqual(["leg_5"]);
      const stolen = await run((tx) => tx.chainState.putTransaction(transaction("leg_4", ["0xaa"], T0))).then(
        () => "stored",
        () => "refused",
      );
      expect(stolen).toBe("refused");
      const inspect = s.inspect.chainTransactions;
      if (inspect) expect((await inspect("base")).map((r) => r.transferId).sort()).toEqual(["leg_1", "leg_2", "leg_3", "leg_5", "leg_6"]);
    });

    it("inserts one record when concurrent transactions insert the same transfer", async () => {
      const outcomes = await Promise.all(
        ["0x01", "0x02", "0x03"].map((hash) => run((tx) => tx.chainState.insertTransaction(transaction("leg_c", [hash], T0)))),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const stored = await run((tx) => tx.chainState.getTransaction("base", "leg_c"));
      expect(stored!.attempts).toHaveLength(1);
      expect(await run((tx) => tx.chainState.findTransactionByHash("base", stored!.attempts[0]!.txHash))).toEqual(stored);
    });

    it("records derived addresses once per key and index", async () => {
      const address = (key: string, index: number) => ({
        wallet: "0xhot",
        key,
        index,
        address: `0x${String(index).padStart(40, "0")}`,
        chain: "base",
        fromBlock: 100,
        created: T0,
      });
      await run((tx) => tx.chainState.insertAddress(address("base:pi_2", 2)));
      await run((tx) => tx.chainState.insertAddress(address("base:pi_1", 1)));
      expect(await run((tx) => tx.chainState.getAddress("0xhot", "base:pi_1"))).toEqual(address("base:pi_1", 1));
      expect(await run((tx) => tx.chainState.getAddress("0xother", "base:pi_1"))).toBeNull();
      expect((await run((tx) => tx.chainState.listAddresses("0xhot"))).map((a) => a.index)).toEqual([1, 2]);
      expect((await run((tx) => tx.chainState.listAddresses("0xhot", 1))).map((a) => a.index)).toEqual([2]);
      for (const dup of [address("base:pi_1", 3), address("base:pi_3", 2)]) {
        const outcome = await run((tx) => tx.chainState.insertAddress(dup)).then(
          () => "stored",
          () => "refused",
        );
        expect(outcome).toBe("refused");
      }
    });

    it("moves the scan tip only from the tip it expects, and keeps block hashes", async () => {
      const tip = (number: number, hash: string) => ({ chain: "base", number, hash });
      expect(await run((tx) => tx.chainState.getScanTip("base"))).toBeNull();
      expect(await run((tx) => tx.chainState.moveScanTip("base", null, tip(10, "0x10")))).toBe(true);
      expect(await run((tx) => tx.chainState.moveScanTip("base", null, tip(11, "0x11")))).toBe(false);
      expect(await run((tx) => tx.chainState.moveScanTip("base", tip(10, "0xff"), tip(11, "0x11")))).toBe(false);
      expect(await run((tx) => tx.chainState.moveScanTip("base", tip(10, "0x10"), tip(12, "0x12")))).toBe(true);
      expect(await run((tx) => tx.chainState.getScanTip("base"))).toEqual(tip(12, "0x12"));
      if (s.storage.capabilities.concurrentTransactions) {
        const raced = await Promise.all(
          [13, 14, 15].map((n) => run((tx) => tx.chainState.moveScanTip("base", tip(12, "0x12"), tip(n, `0x${n}`)))),
        );
        expect(raced.filter(Boolean).length).toBe(1);
      }
      await run((tx) => tx.chainState.putBlocks([tip(8, "0x8"), tip(9, "0x9"), tip(10, "0x10"), tip(11, "0x11")]));
      await run((tx) => tx.chainState.putBlocks([tip(11, "0xb11"), { chain: "polygon", number: 1, hash: "0x1" }]));
      expect(await run((tx) => tx.chainState.listBlocks("base"))).toEqual([tip(8, "0x8"), tip(9, "0x9"), tip(10, "0x10"), tip(11, "0xb11")]);
      expect(await run((tx) => tx.chainState.deleteBlocks("base", { from: 11, below: 9 }))).toBe(2);
      expect(await run((tx) => tx.chainState.listBlocks("base"))).toEqual([tip(9, "0x9"), tip(10, "0x10")]);
      expect(await run((tx) => tx.chainState.listBlocks("polygon"))).toHaveLength(1);
    });

    it("records deposits once, reverts those of abandoned blocks, lists by finality window, reversal and sweep", async () => {
      const deposits = [deposit("d1", 10), deposit("d2", 12), deposit("d3", 15)];
      expect(await run((tx) => tx.chainState.insertDeposits(deposits))).toBe(3);
      expect(await run((tx) => tx.chainState.insertDeposits([deposit("d1", 10), deposit("d4", 16)]))).toBe(1);
      const reverted = await run((tx) => tx.chainState.revertDeposits("base", 15, 20));
      expect(reverted.map((d) => [d.transferId, d.revertedAt])).toEqual([
        ["d3", 20],
        ["d4", 20],
      ]);
      expect(await run((tx) => tx.chainState.revertDeposits("base", 15, 21))).toEqual([]);
      const ids = (ds: ChainDepositRecord[]) => ds.map((d) => d.transferId);
      expect(ids(await run((tx) => tx.chainState.listDeposits("base", { minBlock: 11 })))).toEqual(["d2"]);
      expect(ids(await run((tx) => tx.chainState.listDeposits("base", { revertedSince: 20 })))).toEqual(["d3", "d4"]);
      expect(ids(await run((tx) => tx.chainState.listDeposits("base", { revertedSince: 21 })))).toEqual([]);
      expect(ids(await run((tx) => tx.chainState.listDeposits("base", { minBlock: 12, revertedSince: 20 })))).toEqual(["d2", "d3", "d4"]);
      await run((tx) => tx.chainState.setDepositSweep("base", ["d1"], "swp_1"));
      expect(ids(await run((tx) => tx.chainState.listDeposits("base", { unsweptTo: 14 })))).toEqual(["d2"]);
      await run((tx) => tx.chainState.setDepositSweep("base", ["d1"], null));
      expect(ids(await run((tx) => tx.chainState.listDeposits("base", { unsweptTo: 14 })))).toEqual(["d1", "d2"]);
      expect(await run((tx) => tx.chainState.listDeposits("polygon", { minBlock: 0 }))).toEqual([]);
      const stored = await run((tx) => tx.chainState.listDeposits("base", { minBlock: 0 }));
      expect(stored[0]).toEqual(deposit("d1", 10));
      const inspect = s.inspect.chainDeposits;
      if (inspect) expect(ids(await inspect("base"))).toEqual(["d1", "d2", "d3", "d4"]);
    });

    it("keeps sweeps and lists the open ones", async () => {
      await run((tx) => tx.chainState.insertSweep(sweep("swp_1", "topping_up", T0)));
      await run((tx) => tx.chainState.insertSweep(sweep("swp_2", "moving", T0 + 1)));
      await run((tx) => tx.chainState.updateSweep({ ...sweep("swp_1", "done", T0), attempt: 2, updated: T0 + 9 }));
      expect(await run((tx) => tx.chainState.listOpenSweeps("base"))).toEqual([sweep("swp_2", "moving", T0 + 1)]);
      const twice = await run((tx) => tx.chainState.insertSweep(sweep("swp_2", "moving", T0))).then(
        () => "stored",
        () => "refused",
      );
      expect(twice).toBe("refused");
      await run((tx) => tx.chainState.updateSweep({ ...sweep("swp_2", "abandoned", T0 + 1), reason: "deposit reverted" }));
      expect(await run((tx) => tx.chainState.listOpenSweeps("base"))).toEqual([]);
    });

    it("rolls chain state back with the transaction", async () => {
      await run(async (tx) => {
        await tx.chainState.putTransaction(transaction("leg_x", ["0x01"], T0));
        await tx.chainState.insertDeposits([deposit("dx", 3)]);
        await tx.chainState.moveScanTip("base", null, { chain: "base", number: 3, hash: "0x3" });
        throw new Error("rolled back");
      }).catch(() => undefined);
      expect(await run((tx) => tx.chainState.findTransactionByHash("base", "0x01"))).toBeNull();
      expect(await run((tx) => tx.chainState.listDeposits("base", { minBlock: 0 }))).toEqual([]);
      expect(await run((tx) => tx.chainState.getScanTip("base"))).toBeNull();
    });
  });
}

function attempt(txHash: string) {
  return { txHash, raw: `0x02${txHash.slice(2)}`, maxFeePerGas: "2000000000", maxPriorityFeePerGas: "1000000000", signedAt: T0 };
}

function transaction(id: string, hashes: string[], created: number, status: ChainTransactionRecord["status"] = "signed"): ChainTransactionRecord {
  return {
    chain: "base",
    transferId: id,
    kind: "payout",
    keyIndex: 0,
    from: "0xhot",
    to: "0xrecipient",
    asset: "USDC",
    amount: 123_456_789_000_000_000_000_000n,
    nonce: status === "rejected" ? null : 7,
    status,
    reason: status === "rejected" ? "execution reverted" : null,
    attempts: hashes.map(attempt),
    minedHash: status === "final" ? hashes[0]! : null,
    gasCost: status === "final" ? 21_000_000_000_000n : null,
    created,
    updated: created,
  };
}

function deposit(id: string, blockNumber: number): ChainDepositRecord {
  return {
    chain: "base",
    transferId: id,
    address: "0xdeposit",
    asset: "USDC",
    amount: 5_000_000n,
    txHash: `0xtx${id}`,
    blockNumber,
    blockHash: `0xblock${blockNumber}`,
    blockTime: T0 + blockNumber * 2_000,
    revertedAt: null,
    sweep: null,
    created: T0,
  };
}

function sweep(id: string, status: ChainSweepRecord["status"], created: number): ChainSweepRecord {
  return {
    chain: "base",
    id,
    address: "0xdeposit",
    keyIndex: 3,
    asset: "USDC",
    amount: 5_000_000n,
    status,
    attempt: 1,
    reason: null,
    created,
    updated: created,
  };
}

import { describe, expect, it } from "vitest";
import type { SimulatedTransferRecord, StorageTx } from "../../ports/storage";
import { T0, type SuiteContext } from "./fixtures";

/** `tx.simulatedChains`: counters, and the simulated transfers with their reorganisations. */
export function simulatedChainSuite(s: SuiteContext): void {
  const run = <T>(fn: (tx: StorageTx) => Promise<T>) => s.storage.transaction(fn);

  describe("simulated chains", () => {
    it("adds to counters (beyond 64 bits, negative too), keeps nothing of a rolled-back transaction, and loses no concurrent addition", async () => {
      expect(await run((tx) => tx.simulatedChains.getCounter("blocks:base"))).toBe(0n);
      expect(await run((tx) => tx.simulatedChains.addToCounter("blocks:base", 5n))).toBe(5n);
      const big = 2_000n * 10n ** 18n;
      expect(await run((tx) => tx.simulatedChains.addToCounter("spent:base:ETH", big))).toBe(big);
      expect(await run((tx) => tx.simulatedChains.addToCounter("spent:base:ETH", -1n))).toBe(big - 1n);
      await run(async (tx) => {
        await tx.simulatedChains.addToCounter("blocks:base", 100n);
        throw new Error("rolled back");
      }).catch(() => undefined);
      expect(await run((tx) => tx.simulatedChains.getCounter("blocks:base"))).toBe(5n);
      await Promise.all(Array.from({ length: 10 }, () => run((tx) => tx.simulatedChains.addToCounter("burst", 2n))));
      expect(await run((tx) => tx.simulatedChains.getCounter("burst"))).toBe(20n);
    });

    it("records a transfer once, returning the first record to a repeated or concurrent insert, and finds it by hash", async () => {
      const sent = transfer("leg_1", "out", 100, { txHash: "0xaa" });
      expect(await run((tx) => tx.simulatedChains.insertTransfer(sent))).toEqual(sent);
      expect(await run((tx) => tx.simulatedChains.insertTransfer({ ...sent, txHash: "0xbb", includedAt: 200 }))).toEqual(sent);
      const refused = transfer("leg_2", "out", null, { txHash: null, refused: "no liquidity" });
      await run((tx) => tx.simulatedChains.insertTransfer(refused));
      const racers = await Promise.all(
        [300, 301, 302].map((h) => run((tx) => tx.simulatedChains.insertTransfer(transfer("leg_3", "out", h, { txHash: `0xc${h}` })))),
      );
      expect(new Set(racers.map((r) => r.txHash)).size).toBe(1);
      expect(await run((tx) => tx.simulatedChains.getTransfer("base", "leg_2"))).toEqual(refused);
      expect(await run((tx) => tx.simulatedChains.getTransfer("polygon", "leg_1"))).toBeNull();
      expect(await run((tx) => tx.simulatedChains.findTransferByHash("base", "0xaa"))).toEqual(sent);
      expect(await run((tx) => tx.simulatedChains.findTransferByHash("base", "0xbb"))).toBeNull();
      expect(await run((tx) => tx.simulatedChains.findTransferByHash("polygon", "0xaa"))).toBeNull();
      const inspect = s.inspect.simulatedTransfers;
      if (inspect) expect((await inspect("base")).map((r) => r.transferId)).toEqual(["leg_1", "leg_2", "leg_3"]);
    });

    it("lists the deposits whose story is not over, and reorganises a range of blocks", async () => {
      await run(async (tx) => {
        for (const [id, h] of [["in_b", 10], ["in_a", 10], ["in_c", 12], ["in_d", 15]] as const) {
          await tx.simulatedChains.insertTransfer(transfer(id, "in", h, { txHash: `0x${id}` }));
        }
        await tx.simulatedChains.insertTransfer(transfer("leg_9", "out", 12, { txHash: "0xleg9" }));
        await tx.simulatedChains.insertTransfer(transfer("in_other", "in", 12, { chain: "polygon", txHash: "0xo" }));
      });
      const ids = async (from: number, since: number) =>
        (await run((tx) => tx.simulatedChains.listInbound("base", { includedFrom: from, droppedSince: since }))).map((r) => r.transferId);
      expect(await ids(0, 0)).toEqual(["in_a", "in_b", "in_c", "in_d"]);
      expect(await ids(11, 0)).toEqual(["in_c", "in_d"]);
      // blocks 11 to 12 replaced at tip 14: the outbound transfer moves to 15, the deposit drops at 14
      expect(await run((tx) => tx.simulatedChains.reorganize("base", { from: 11, to: 12 }, 15, 14))).toBe(2);
      expect(await run((tx) => tx.simulatedChains.getTransfer("base", "leg_9"))).toMatchObject({ includedAt: 15, droppedAt: null });
      expect(await run((tx) => tx.simulatedChains.getTransfer("base", "in_c"))).toMatchObject({ includedAt: 12, droppedAt: 14 });
      expect(await run((tx) => tx.simulatedChains.getTransfer("polygon", "in_other"))).toMatchObject({ droppedAt: null });
      expect(await ids(11, 14)).toEqual(["in_c", "in_d"]);
      expect(await ids(11, 15)).toEqual(["in_d"]);
      // a dropped deposit is not dropped again
      expect(await run((tx) => tx.simulatedChains.reorganize("base", { from: 12, to: 12 }, 16, 15))).toBe(0);
    });
  });
}

function transfer(
  transferId: string,
  direction: "out" | "in",
  includedAt: number | null,
  extra: Partial<SimulatedTransferRecord> = {},
): SimulatedTransferRecord {
  return {
    chain: "base",
    transferId,
    direction,
    asset: "USDC",
    address: `0x${"12".repeat(20)}`,
    amount: 2n ** 70n,
    txHash: null,
    includedAt,
    droppedAt: null,
    refused: null,
    failure: null,
    created: T0,
    ...extra,
  };
}

import { describe, expect, it } from "vitest";
import type { SimulatedTransferRecord, StorageTx } from "../../ports/storage";
import { T0, type SuiteContext } from "./fixtures";

/** `tx.simulatedChains`: counters, and the simulated transfers with their reorganisations. */
export function simulatedChainSuite(s: SuiteContext): void {
  const run = <T>(fn: (tx: StorageTx) => Promise<T>) => s.storage.transaction(fn);
  const insert = (record: SimulatedTransferRecord, tx?: StorageTx) =>
    (tx ? tx.simulatedChains.insertTransfers([record]) : run((t) => t.simulatedChains.insertTransfers([record]))).then((r) => r[0]!);
  const get = (chain: string, id: string) => run((tx) => tx.simulatedChains.getTransfers(chain, [id])).then((m) => m.get(id) ?? null);
  const byHash = (chain: string, hash: string) => run((tx) => tx.simulatedChains.findTransfersByHash(chain, [hash])).then((m) => m.get(hash) ?? null);

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
      expect(await insert(sent)).toEqual(sent);
      expect(await insert({ ...sent, txHash: "0xbb", includedAt: 200 })).toEqual(sent);
      const refused = transfer("leg_2", "out", null, { txHash: null, refused: "no liquidity" });
      await insert(refused);
      const racers = await Promise.all(
        [300, 301, 302].map((h) => insert(transfer("leg_3", "out", h, { txHash: `0xc${h}` }))),
      );
      expect(new Set(racers.map((r) => r.txHash)).size).toBe(1);
      expect(await get("base", "leg_2")).toEqual(refused);
      expect(await get("polygon", "leg_1")).toBeNull();
      expect(await byHash("base", "0xaa")).toEqual(sent);
      expect(await byHash("base", "0xbb")).toBeNull();
      expect(await byHash("polygon", "0xaa")).toBeNull();
      const inspect = s.inspect.simulatedTransfers;
      if (inspect) expect((await inspect("base")).map((r) => r.transferId)).toEqual(["leg_1", "leg_2", "leg_3"]);
    });

    it("records many transfers in one call, in order, keeping the first of an existing id or a repeat within the call, and reads many back", async () => {
      const old = transfer("leg_a", "out", 10, { txHash: "0xa1" });
      await insert(old);
      const batch = [
        transfer("leg_b", "out", 11, { txHash: "0xb1" }),
        { ...old, txHash: "0xa2", includedAt: 12 },
        transfer("leg_c", "out", null, { txHash: null, refused: "no liquidity" }),
        transfer("leg_b", "out", 13, { txHash: "0xb2" }),
        transfer("leg_d", "out", 14, { chain: "polygon", txHash: "0xd1" }),
      ];
      const stored = await run((tx) => tx.simulatedChains.insertTransfers(batch));
      expect(stored).toEqual([batch[0], old, batch[2], batch[0], batch[4]]);
      expect(await run((tx) => tx.simulatedChains.insertTransfers([]))).toEqual([]);
      const found = await run((tx) => tx.simulatedChains.getTransfers("base", ["leg_a", "leg_b", "leg_c", "leg_d", "leg_none", "leg_a"]));
      expect([...found.keys()].sort()).toEqual(["leg_a", "leg_b", "leg_c"]);
      expect(found.get("leg_a")).toEqual(old);
      const hashes = await run((tx) => tx.simulatedChains.findTransfersByHash("base", ["0xa1", "0xb1", "0xa2", "0xb2", "0xd1"]));
      expect(new Map([...hashes].map(([h, r]) => [h, r.transferId]))).toEqual(new Map([["0xa1", "leg_a"], ["0xb1", "leg_b"]]));
      expect((await run((tx) => tx.simulatedChains.findTransfersByHash("polygon", ["0xd1"]))).get("0xd1")).toEqual(batch[4]);
      // a rolled-back call leaves nothing
      await run(async (tx) => {
        await tx.simulatedChains.insertTransfers([transfer("leg_e", "out", 15, { txHash: "0xe1" })]);
        throw new Error("rolled back");
      }).catch(() => undefined);
      expect(await get("base", "leg_e")).toBeNull();
    });

    it("lists the deposits whose story is not over, and reorganises a range of blocks", async () => {
      await run(async (tx) => {
        for (const [id, h] of [["in_b", 10], ["in_a", 10], ["in_c", 12], ["in_d", 15]] as const) {
          await insert(transfer(id, "in", h, { txHash: `0x${id}` }), tx);
        }
        await insert(transfer("leg_9", "out", 12, { txHash: "0xleg9" }), tx);
        await insert(transfer("in_other", "in", 12, { chain: "polygon", txHash: "0xo" }), tx);
      });
      const ids = async (from: number, since: number) =>
        (await run((tx) => tx.simulatedChains.listInbound("base", { includedFrom: from, droppedSince: since }))).map((r) => r.transferId);
      expect(await ids(0, 0)).toEqual(["in_a", "in_b", "in_c", "in_d"]);
      expect(await ids(11, 0)).toEqual(["in_c", "in_d"]);
      // blocks 11 to 12 replaced at tip 14: the outbound transfer moves to 15, the deposit drops at 14
      expect(await run((tx) => tx.simulatedChains.reorganize("base", { from: 11, to: 12 }, 15, 14))).toBe(2);
      expect(await get("base", "leg_9")).toMatchObject({ includedAt: 15, droppedAt: null });
      expect(await get("base", "in_c")).toMatchObject({ includedAt: 12, droppedAt: 14 });
      expect(await get("polygon", "in_other")).toMatchObject({ droppedAt: null });
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

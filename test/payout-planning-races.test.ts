import { afterAll, describe, expect, it } from "vitest";
import { testWorld } from "./support/engine";
import { closeSharedStorage, storageKinds } from "./support/storage";

/**
 * A payout is planned in its create transaction, on the balances that transaction locked: two
 * payouts racing for one chain's funds both go out when another chain can carry the second,
 * instead of the second planning on funds the first already took and failing to reserve them.
 */
const EVM = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

for (const kind of storageKinds()) {
  describe(`payout planning under concurrent creates on ${kind.name}`, () => {
    it("routes the second of two racing payouts to the chain the first left funded", async () => {
      const w = await testWorld(kind);
      try {
        for (const chain of ["base", "polygon"]) {
          (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain, amount: "10" }))._unsafeUnwrap();
        }
        const rcp = (await w.engine.recipients.create(w.ctx, { name: "R", chain_addresses: { base: EVM, polygon: EVM } }))._unsafeUnwrap().id;
        // polygon is the cheaper chain: each payout alone would go there, and it holds one of them
        const made = await Promise.all([0, 1].map(() => w.engine.payouts.create(w.ctx, { amount: "8", asset: "USDC", recipient: rcp })));
        const payouts = made.map((m) => m._unsafeUnwrap());
        expect(payouts.map((p) => p.legs.map((l) => l.chain)).sort()).toEqual([["base"], ["polygon"]]);
        const usdc = (await w.engine.balances.list(w.ctx))._unsafeUnwrap().data.find((b) => b.asset === "USDC")!;
        expect(usdc.reserved).toBe("16.0123"); // 8 + 0.0015 + 0.0004 on polygon, 8 + 0.01 + 0.0004 on base
      } finally {
        await w.close();
      }
    });
  });
}

afterAll(closeSharedStorage);

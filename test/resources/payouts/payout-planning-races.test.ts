import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import type { StorageAdapter } from "../../../src/ports/storage";
import { testWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

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

    it("plans afresh when the storage runs the create's transaction again (a deadlock or serialization retry)", async () => {
      // every transaction runs twice while `twice` is set: the first run is rolled back, as a retried one is
      let twice = false;
      const again = new Error("run it again");
      const harness = await kind.factory();
      const storage = new Proxy(harness.storage, {
        get(target, prop, receiver) {
          if (prop === "transaction") {
            return async (fn: Parameters<StorageAdapter["transaction"]>[0], options?: Parameters<StorageAdapter["transaction"]>[1]) => {
              if (twice) {
                await target
                  .transaction(async (tx) => {
                    await fn(tx);
                    throw again;
                  }, options)
                  .catch((e: unknown) => {
                    if (e !== again) throw e;
                  });
              }
              return target.transaction(fn, options);
            };
          }
          const value = Reflect.get(target, prop, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const clock = new ManualClock();
      // the hot wallet on base carries one such payout, not two
      const sim = new SimulatedChains({ clock, chains: { base: { liquidity: { USDC: "10" } } } });
      const w = await testWorld(kind, { clock, chainAdapters: [sim], harness: { ...harness, storage } });
      try {
        (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "100" }))._unsafeUnwrap();
        const rcp = (await w.engine.recipients.create(w.ctx, { name: "R", chain_addresses: { base: EVM } }))._unsafeUnwrap().id;
        twice = true;
        const made = await w.engine.payouts.create(w.ctx, { amount: "8", asset: "USDC", recipient: rcp });
        twice = false;
        expect(made._unsafeUnwrap().legs.map((l) => [l.chain, l.amount])).toEqual([["base", "8"]]);
      } finally {
        await w.close();
      }
    });
  });
}

afterAll(closeSharedStorage);

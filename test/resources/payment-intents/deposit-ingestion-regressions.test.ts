import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import type { ChainAdapter } from "../../../src/ports/chain";
import { testWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * Regressions found in review: a zero-value deposit (address-poisoning spam) stopped deposit
 * reading for the whole chain; a deposit made in time but read late, after the expiry job ran,
 * was never credited; a long chain outage backed the watcher off for an hour at a time.
 */
function readable(sim: SimulatedChains, state: { down: boolean }): ChainAdapter {
  return new Proxy(sim, {
    get(target, prop, receiver) {
      if (prop === "inboundTransfers") {
        return async (chain: string, cursor: string | null) => {
          if (state.down) throw new Error("RPC timeout");
          return target.inboundTransfers(chain, cursor);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as ChainAdapter;
}

for (const kind of storageKinds()) {
  describe(`deposit ingestion on ${kind.name}`, () => {
    it("ignores a zero-value deposit and keeps crediting everyone else on the chain", async () => {
      const clock = new ManualClock();
      const sim = new SimulatedChains({ clock });
      const w = await testWorld(kind, { clock, chainAdapters: [sim] });
      try {
        const spammed = (await w.engine.paymentIntents.create(w.ctx, { amount: "5", asset: "USDC", chains: ["base"] }))._unsafeUnwrap();
        const other = (await w.engine.paymentIntents.create(w.ctx, { amount: "7", asset: "USDC", chains: ["base"] }))._unsafeUnwrap();
        await sim.pay({ chain: "base", asset: "USDC", address: spammed.deposit_addresses.base!, amount: 0n });
        await sim.pay({ chain: "base", asset: "USDC", address: other.deposit_addresses.base!, amount: 7_000_000n });
        await sim.advance("base", 6);
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 10 }))._unsafeUnwrap();
        expect((await w.engine.paymentIntents.retrieve(w.ctx, other.id, {}))._unsafeUnwrap()).toMatchObject({
          status: "succeeded",
          amount_received: "7",
        });
        expect((await w.engine.paymentIntents.retrieve(w.ctx, spammed.id, {}))._unsafeUnwrap()).toMatchObject({
          status: "requires_payment",
          settlements: [],
        });
      } finally {
        await w.close();
      }
    });

    it("credits a deposit made in time even if the chain could not be read until after expires_at", async () => {
      const clock = new ManualClock();
      const sim = new SimulatedChains({ clock });
      const state = { down: false };
      const w = await testWorld(kind, { clock, chainAdapters: [readable(sim, state)] });
      try {
        const pi = (await w.engine.paymentIntents.create(w.ctx, { amount: "5", asset: "USDC", chains: ["base"], expires_in: 600 }))._unsafeUnwrap();
        state.down = true;
        await sim.pay({ chain: "base", asset: "USDC", address: pi.deposit_addresses.base!, amount: 5_000_000n });
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 720 }))._unsafeUnwrap(); // past expiry, chain unreadable
        expect((await w.engine.paymentIntents.retrieve(w.ctx, pi.id, {}))._unsafeUnwrap().status).toBe("requires_payment");
        state.down = false;
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 120 }))._unsafeUnwrap();
        const after = (await w.engine.paymentIntents.retrieve(w.ctx, pi.id, { expand: ["settlements"] }))._unsafeUnwrap();
        expect(after).toMatchObject({ status: "succeeded", amount_received: "5" });
      } finally {
        await w.close();
      }
    });

    it("reads the chain again within a minute after a long outage", async () => {
      const clock = new ManualClock();
      const sim = new SimulatedChains({ clock });
      const state = { down: false };
      const w = await testWorld(kind, { clock, chainAdapters: [readable(sim, state)] });
      try {
        await w.engine.paymentIntents.create(w.ctx, { amount: "5", asset: "USDC", chains: ["base"], expires_in: 2_592_000 });
        state.down = true;
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 12 * 3_600 }))._unsafeUnwrap();
        state.down = false;
        const later = (await w.engine.paymentIntents.create(w.ctx, { amount: "5", asset: "USDC", chains: ["base"] }))._unsafeUnwrap();
        await sim.pay({ chain: "base", asset: "USDC", address: later.deposit_addresses.base!, amount: 5_000_000n });
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 90 }))._unsafeUnwrap();
        expect((await w.engine.paymentIntents.retrieve(w.ctx, later.id, {}))._unsafeUnwrap().status).toBe("succeeded");
      } finally {
        await w.close();
      }
    });
  });
}

afterAll(closeSharedStorage);

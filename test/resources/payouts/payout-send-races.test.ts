import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import type { ChainAdapter } from "../../../src/ports/chain";
import { engineDeps } from "../../../src/engine/engine";
import { PAYOUTS } from "../../../src/resources/payouts/payout-doc";
import { testWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * Regressions found in review: runs that raced over one payout. A payout create sends its legs at
 * once while the worker it woke sends them too; a refusal to one run must not beat a send by the
 * other into "failed and released" while the money went out. And a tracker that finishes while a
 * retried broadcast puts a leg in flight must not leave that leg untracked.
 */
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/** A chain adapter whose calls a test can fail on purpose, one transfer at a time (no `broadcastMany`). */
function flaky(sim: SimulatedChains, fails: { broadcast?: (transferId: string) => boolean }): ChainAdapter {
  return new Proxy(sim, {
    get(target, prop, receiver) {
      if (prop === "broadcastMany") return undefined;
      if (prop === "broadcast") {
        return async (transfer: Parameters<ChainAdapter["broadcast"]>[0]) => {
          if (fails.broadcast?.(transfer.transferId)) throw new Error("RPC timeout");
          return target.broadcast(transfer);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as ChainAdapter;
}

for (const kind of storageKinds()) {
  describe(`payout send races on ${kind.name}`, () => {
    it("never releases a payout the chain sent, while create and the woken worker both send it", async () => {
      for (let i = 0; i < 5; i++) {
        const clock = new ManualClock();
        const sim = new SimulatedChains({ clock });
        const w = await testWorld(kind, { clock, chainAdapters: [sim] });
        try {
          (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "100" }))._unsafeUnwrap();
          const rcp = (await w.engine.recipients.create(w.ctx, { name: "R", chain_addresses: { base: BASE } }))._unsafeUnwrap().id;
          w.engine.worker.start();
          sim.failNext("base", 1, "rejected");
          const res = await w.request("POST", "/v1/payouts", {
            body: { amount: "10", asset: "USDC", recipient: rcp },
            headers: { "Idempotency-Key": `race-${i}` },
          });
          const created = (await res.json()) as { id: string };
          await new Promise((r) => setTimeout(r, 100));
          await w.engine.worker.stop();
          const payout = (await w.engine.payouts.retrieve(w.ctx, created.id, {}))._unsafeUnwrap();
          const leg = payout.legs[0]!;
          // one outcome for the leg, the same for every run: the first refusal, remembered
          expect(leg).toMatchObject({ status: "failed", failure_code: "broadcast_rejected", tx_hash: null });
          const usdc = (await w.engine.balances.list(w.ctx))._unsafeUnwrap().data.find((b) => b.asset === "USDC")!;
          expect(usdc).toMatchObject({ available: "100", reserved: "0" });
          expect(await sim.broadcast({ transferId: leg.id, chain: "base", asset: "USDC", amount: 10_000_000n, to: BASE })).toEqual({
            rejected: "the simulated chain refused the transaction",
          });
        } finally {
          await w.close();
        }
      }
    });

    it("keeps tracking a leg that a retried broadcast puts in flight as the tracker finishes", async () => {
      const clock = new ManualClock();
      const sim = new SimulatedChains({
        clock,
        chains: { base: { fees: { USDC: { fixed: "0", proportionalPpm: 0, perTransferCap: "5" } } } },
      });
      let first: string | null = null;
      let down: string | null = null;
      const chain = flaky(sim, {
        broadcast: (id) => {
          if (first === null) first = id;
          else if (id !== first && down === null) down = id;
          return id === down;
        },
      });
      const w = await testWorld(kind, { clock, chainAdapters: [chain] });
      try {
        (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "100" }))._unsafeUnwrap();
        const rcp = (await w.engine.recipients.create(w.ctx, { name: "R", chain_addresses: { base: BASE } }))._unsafeUnwrap().id;
        const payout = (await w.engine.payouts.create(w.ctx, { amount: "10", asset: "USDC", recipient: rcp }))._unsafeUnwrap();
        expect(payout.legs.map((l) => l.status)).toEqual(["broadcast", "pending"]);
        clock.advance(5_000); // the first leg is final; the broadcast retry and the tracker are both due
        down = "none"; // the chain answers again
        await w.engine.worker.runDue();
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 3_600 }))._unsafeUnwrap();
        const after = (await w.engine.payouts.retrieve(w.ctx, payout.id, {}))._unsafeUnwrap();
        expect(after.status).toBe("settled");
        expect((await w.engine.balances.list(w.ctx))._unsafeUnwrap().data.find((b) => b.asset === "USDC")).toMatchObject({ available: "90", reserved: "0" });
        expect((await w.harness.inspect.work()).filter((j) => j.kind.startsWith("payouts."))).toEqual([]);
      } finally {
        await w.close();
      }
    });

    it("records the send of a new payout that changed between its create and the send (the optimistic write falls back to a locked one)", async () => {
      const clock = new ManualClock();
      const sim = new SimulatedChains({ clock });
      let touch: (() => Promise<void>) | null = null;
      const chain = new Proxy(sim, {
        get(target, prop, receiver) {
          if (prop === "broadcast" || prop === "broadcastMany") {
            return async (transfer: never) => {
              await touch?.(); // another writer updates the payout while its leg is on the way
              return (target[prop] as (t: never) => Promise<unknown>).call(target, transfer);
            };
          }
          const value = Reflect.get(target, prop, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }) as unknown as ChainAdapter;
      const w = await testWorld(kind, { clock, chainAdapters: [chain] });
      try {
        (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "100" }))._unsafeUnwrap();
        const rcp = (await w.engine.recipients.create(w.ctx, { name: "R", chain_addresses: { base: BASE } }))._unsafeUnwrap().id;
        let bumped = 0;
        touch = async () => {
          const [newest] = (await w.engine.payouts.list(w.ctx, { limit: 1 }))._unsafeUnwrap().data;
          await engineDeps(w.engine).storage.transaction(async (tx) => {
            const locked = await PAYOUTS.lockMany(tx, w.accountId, [newest!.id]);
            const stored = locked.get(newest!.id)!;
            await PAYOUTS.updateMany(tx, [{ stored, doc: stored.doc }], clock.now());
          });
          bumped++;
        };
        const res = await w.request("POST", "/v1/payouts", {
          body: { amount: "10", asset: "USDC", recipient: rcp },
          headers: { "Idempotency-Key": "changed-meanwhile" },
        });
        const created = (await res.json()) as { id: string; legs: { status: string; tx_hash: string | null }[] };
        expect(bumped).toBe(1);
        expect(created.legs.map((l) => l.status)).toEqual(["broadcast"]);
        const stored = (await w.engine.payouts.retrieve(w.ctx, created.id, {}))._unsafeUnwrap();
        expect(stored.legs[0]).toMatchObject({ status: "broadcast", tx_hash: created.legs[0]!.tx_hash });
        // the replay shows what the first answer showed
        touch = null;
        const replay = await w.request("POST", "/v1/payouts", {
          body: { amount: "10", asset: "USDC", recipient: rcp },
          headers: { "Idempotency-Key": "changed-meanwhile" },
        });
        expect(await replay.json()).toEqual(created);
      } finally {
        await w.close();
      }
    });

    it("does not let tracking die after a long chain outage: the payout settles when the chain is back", async () => {
      const clock = new ManualClock();
      const sim = new SimulatedChains({ clock });
      let down = false;
      const chain = new Proxy(sim, {
        get(target, prop, receiver) {
          if (prop === "transferStatus") {
            return async (c: string, hash: string) => {
              if (down) throw new Error("RPC timeout");
              return target.transferStatus(c, hash);
            };
          }
          const value = Reflect.get(target, prop, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }) as unknown as ChainAdapter;
      const w = await testWorld(kind, { clock, chainAdapters: [chain] });
      try {
        (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "100" }))._unsafeUnwrap();
        const rcp = (await w.engine.recipients.create(w.ctx, { name: "R", chain_addresses: { base: BASE } }))._unsafeUnwrap().id;
        const payout = (await w.engine.payouts.create(w.ctx, { amount: "10", asset: "USDC", recipient: rcp }))._unsafeUnwrap();
        down = true;
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 6 * 3_600 }))._unsafeUnwrap();
        down = false;
        (await w.engine.testHelpers.advanceClock(w.ctx, { seconds: 600 }))._unsafeUnwrap();
        expect((await w.engine.payouts.retrieve(w.ctx, payout.id, {}))._unsafeUnwrap().status).toBe("settled");
      } finally {
        await w.close();
      }
    });
  });
}

afterAll(closeSharedStorage);

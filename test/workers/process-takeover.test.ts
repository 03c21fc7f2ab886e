import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/clock";
import { SimulatedChains } from "../../adapters/chains/simulated";
import type { ChainAdapter } from "../../src/ports/chain";
import { IdempotencyKeyLostError } from "../../src/ports/storage";
import { saveResponseWithin } from "../../src/engine/idempotency";
import type { HeartbeatOptions } from "../../src/workers/process-lease";
import type { StorageHarness } from "../../src/conformance";
import { testWorld, type TestWorld } from "../support/engine";
import { closeSharedStorage, storageKinds } from "../support/storage";

/**
 * Issue 23 through two engines on one store, each a process that heartbeats (driven by hand on a
 * manual clock: `worker.process.beat()`): what the first holds when it stops heartbeating (an
 * Idempotency-Key in flight, payout legs claimed for sending) is taken over by the second as
 * soon as the first is declared dead, and the first, waking late, changes nothing.
 */
const HB: HeartbeatOptions = { intervalMs: 1_000, lifetimeMs: 5_000 };
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/** `chain` whose sends wait for `gate`: a process paused in the middle of sending. */
function paused(chain: ChainAdapter, gate: Promise<void>): ChainAdapter {
  return new Proxy(chain, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "broadcast" || prop === "broadcastMany") {
        return async (...args: unknown[]) => {
          await gate;
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}

for (const kind of storageKinds()) {
  describe(`takeover from a process declared dead, on ${kind.name}`, () => {
    async function pair(
      chains?: { a: ChainAdapter[]; b: ChainAdapter[] },
      clock = new ManualClock(),
      harness?: StorageHarness,
    ): Promise<[TestWorld, TestWorld]> {
      const a = await testWorld(kind, { clock, worker: { heartbeat: HB }, ...(harness ? { harness } : {}), ...(chains ? { chainAdapters: chains.a } : {}) });
      const b = await testWorld(kind, { clock, harness: a.harness, worker: { heartbeat: HB }, ...(chains ? { chainAdapters: chains.b } : {}) });
      await a.engine.worker.process.beat();
      await b.engine.worker.process.beat();
      return [a, b];
    }

    it("frees an Idempotency-Key in flight as soon as its process is declared dead, and refuses the dead request's save", async () => {
      const [a, b] = await pair();
      try {
        const begun = (await a.engine.idempotency.begin(a.accountId, "in-flight", "fp"))._unsafeUnwrap();
        if (begun.kind !== "proceed") throw new Error("expected to proceed");
        expect(begun.claim.owner).toBe(a.engine.worker.owner);
        // alive (its life runs to +5 s): the key is in use
        a.clock.advance(4_000);
        await b.engine.worker.process.beat();
        expect((await b.engine.idempotency.begin(a.accountId, "in-flight", "fp"))._unsafeUnwrapErr().code).toBe("idempotency_key_in_use");
        // a stopped heartbeating at 0: at +5 s it is declared dead, and the key is free
        a.clock.advance(1_000);
        await b.engine.worker.process.beat();
        const taken = (await b.engine.idempotency.begin(a.accountId, "in-flight", "fp"))._unsafeUnwrap();
        expect(taken.kind).toBe("proceed");
        if (taken.kind !== "proceed") return;
        expect(taken.claim.owner).toBe(b.engine.worker.owner);
        // the dead request wakes: its response is not saved over the taker's key
        await expect(a.engine.storage.transaction((tx) => saveResponseWithin(tx, begun.claim, { status: 200, body: { late: true } }))).rejects.toMatchObject({
          cause: expect.any(IdempotencyKeyLostError),
        });
        await a.engine.idempotency.saveIfHeld(begun.claim, { status: 200, body: { late: true } });
        expect(await a.harness.inspect.idempotencyKeys(a.accountId)).toEqual([
          expect.objectContaining({ key: "in-flight", lockedAt: taken.claim.lockedAt, owner: b.engine.worker.owner, response: null }),
        ]);
        // and its own next heartbeat is refused: it goes on under a new name
        const old = a.engine.worker.owner;
        await a.engine.worker.process.beat();
        expect(a.engine.worker.owner).not.toBe(old);
      } finally {
        await b.engine.close();
        await a.close();
      }
    });

    it("takes over the legs a dead process was sending when it is declared dead, not a claim period later; sent once", async () => {
      const clock = new ManualClock();
      let wake = () => undefined as void;
      const gate = new Promise<void>((r) => (wake = r));
      const harness = await kind.factory();
      // one simulated world for both, kept in the shared store, so a repeated send is seen as one
      const world = new SimulatedChains({ clock, storage: harness.storage });
      const [a, b] = await pair({ a: [paused(world, gate)], b: [world] }, clock, harness);
      try {
        (await a.engine.testHelpers.fund(a.ctx, { asset: "USDC", chain: "base", amount: "100" }))._unsafeUnwrap();
        const rcp = (await a.engine.recipients.create(a.ctx, { name: "R", chain_addresses: { base: BASE } }))._unsafeUnwrap().id;
        const started = clock.now();
        // a claims the leg at create and is paused in the chain call; it never heartbeats again
        const creating = a.engine.payouts.create(a.ctx, { amount: "10", asset: "USDC", recipient: rcp });
        let leg = await waitFor(async () => {
          const [p] = (await b.engine.payouts.list(a.ctx, { limit: 1 }))._unsafeUnwrap().data;
          return p ?? null;
        });
        // b's broadcast run finds a's fresh claim: it comes back when a's life ends, not 60 s later
        await b.engine.worker.runDue();
        const broadcast = (await a.harness.inspect.work()).find((w) => w.kind === "payouts.broadcast");
        expect(broadcast?.runAt).toBe(started + HB.lifetimeMs);
        clock.advance(HB.lifetimeMs);
        await b.engine.worker.process.beat(); // declares a dead
        await b.engine.worker.runDue();
        leg = (await b.engine.payouts.retrieve(a.ctx, leg.id, {}))._unsafeUnwrap();
        expect(leg.legs[0]).toMatchObject({ status: expect.stringMatching(/^(broadcast|confirmed)$/) });
        const hash = leg.legs[0]!.tx_hash;
        expect(hash).toMatch(/^0x/);
        // a wakes: its send is the same transfer (the chain answers with the first outcome), and its record is refused
        wake();
        await creating;
        const after = (await b.engine.payouts.retrieve(a.ctx, leg.id, {}))._unsafeUnwrap();
        expect(after.legs[0]!.tx_hash).toBe(hash);
        // one send: the leg's amount and fee left the available balance once
        const usdc = (await b.engine.balances.list(a.ctx))._unsafeUnwrap().data.find((x) => x.asset === "USDC")!;
        expect(usdc.available).toBe("89.9895");
        expect(await world.broadcast({ transferId: leg.legs[0]!.id, chain: "base", asset: "USDC", amount: 10_000_000n, to: BASE })).toEqual({ txHash: hash });
      } finally {
        wake();
        await b.engine.close();
        await a.close();
      }
    });
  });
}

async function waitFor<T>(fn: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await fn();
    if (value !== null) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("timed out");
}

afterAll(closeSharedStorage);

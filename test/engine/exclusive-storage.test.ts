import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/clock";
import { SimulatedChains } from "../../adapters/chains/simulated";
import type { ChainAdapter } from "../../src/ports/chain";
import { testWorld } from "../support/engine";
import { closeSharedStorage, storageKinds } from "../support/storage";

const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/** A chain adapter whose sends never return (`entered` once one began): the process "dies" in the middle of a send. */
function hanging(sim: SimulatedChains, entered: () => void): ChainAdapter {
  return new Proxy(sim, {
    get(target, prop, receiver) {
      if (prop === "broadcast" || prop === "broadcastMany") {
        return () => {
          entered();
          return new Promise(() => undefined);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as ChainAdapter;
}

/**
 * Issue 11: `npm start` killed in the middle of a settle must not leave its work stuck until the
 * leases and send claims of the dead process run out. An engine created with `exclusiveStorage`
 * (the host on its embedded database) takes them back at once; one sharing the storage does not.
 */
for (const kind of storageKinds()) {
  describe(`exclusive storage on ${kind.name}`, () => {
    it("takes back the work and the send claims of a process that died, at once; a sharing engine waits for them", async () => {
      const clock = new ManualClock();
      const sim = new SimulatedChains({ clock });
      let entered!: () => void;
      const sending = new Promise<void>((resolve) => (entered = resolve));
      const dead = await testWorld(kind, { clock, chainAdapters: [hanging(sim, entered)] });
      (await dead.engine.testHelpers.fund(dead.ctx, { asset: "USDC", chain: "base", amount: "100" }))._unsafeUnwrap();
      const rcp = (await dead.engine.recipients.create(dead.ctx, { name: "R", chain_addresses: { base: BASE } }))._unsafeUnwrap().id;
      const batch = await dead.request("POST", "/v1/payouts/batches", {
        body: { funding: { asset: "USDC", source: "auto" }, legs: [0, 1].map((row) => ({ row, amount: "2", recipient: rcp })) },
        headers: { "Idempotency-Key": "exclusive-1" },
      });
      expect(batch.status).toBe(200);
      // the worker claims the batch's send, claims its legs, and hangs in the chain call: a process killed there
      void dead.engine.worker.runDue();
      await sending;
      const legs = async () => {
        const page = (await dead.engine.payouts.list(dead.ctx, { limit: 10 }))._unsafeUnwrap();
        return page.data.flatMap((p) => p.legs.map((l) => l.status));
      };
      expect(await legs()).toEqual(["pending", "pending"]);

      clock.advance(1_000); // well within the lease and the send claim
      // another engine on the same storage, which may be shared: the dead run's claims hold until they run out
      const sharing = await testWorld(kind, { clock, chainAdapters: [sim], harness: dead.harness });
      await sharing.engine.worker.runDue();
      expect(await legs()).toEqual(["pending", "pending"]);
      await sharing.engine.close();

      // the restarted host, its database its own: everything moves at once, on the same clock
      const restarted = await testWorld(kind, { clock, chainAdapters: [sim], harness: dead.harness, exclusiveStorage: true });
      await restarted.engine.worker.runDue();
      expect(await legs()).toEqual(["broadcast", "broadcast"]);
      const usdc = (await dead.engine.balances.list(dead.ctx))._unsafeUnwrap().data.find((b) => b.asset === "USDC")!;
      expect(usdc.reserved).not.toBe("0");
      await restarted.close();
    });
  });
}

afterAll(closeSharedStorage);

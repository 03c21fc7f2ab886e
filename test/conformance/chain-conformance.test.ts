import { randomBytes } from "node:crypto";
import { ManualClock } from "../../adapters/clock";
import { SimulatedChains } from "../../adapters/chains/simulated";
import { chainConformance } from "../../src/conformance";
import { closeSharedStorage, storageKinds } from "../support/storage";
import { afterAll } from "vitest";
import { toChecksumAddress } from "../../src/chains/chain-address";
import { evmHarness } from "../support/evm/evm-harness";

/** The published chain suite on the simulated chains and on the EVM adapter (hardhat in process). */
/** The simulated chains kept on every storage kind (`npm start` gives them the engine's). */
for (const kind of storageKinds()) {
  chainConformance({
    name: `simulated chains (${kind.name})`,
    factory: async () => {
      const clock = new ManualClock();
      const harness = await kind.factory();
      await harness.storage.init();
      const sim = new SimulatedChains({ clock, storage: harness.storage });
      let paidAt: number | null = null;
      let failing = false;
      return {
        adapter: sim,
        chain: "base",
        asset: "USDC",
        amount: 1_250_000n,
        recipient: async () => toChecksumAddress(`0x${randomBytes(20).toString("hex")}`),
        mine: async (blocks) => sim.advance("base", blocks),
        async pay(address, amount) {
          paidAt = (await sim.height("base")) + 1;
          await sim.pay({ chain: "base", asset: "USDC", address, amount });
        },
        async payMany(outputs) {
          paidAt = (await sim.height("base")) + 1;
          await sim.payMany({ chain: "base", outputs: outputs.map((o) => ({ asset: "USDC", ...o })) });
        },
        async reorgLastPayment() {
          await sim.reorg("base", (await sim.height("base")) - paidAt! + 1);
        },
        async failNext() {
          failing = !failing;
          sim.failNext("base", 1, failing ? "reverted" : "rejected");
        },
        async close() {
          await harness.close();
        },
      };
    },
  });
}

chainConformance({ name: "evm (hardhat in process)", factory: evmHarness });

afterAll(closeSharedStorage);

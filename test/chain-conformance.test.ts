import { randomBytes } from "node:crypto";
import { ManualClock } from "../adapters/clock";
import { SimulatedChains } from "../adapters/chains/simulated";
import { chainConformance } from "../src/conformance";
import { toChecksumAddress } from "../src/chains/chain-address";
import { evmHarness } from "./support/evm/evm-harness";

/** The published chain suite on the simulated chains and on the EVM adapter (hardhat in process). */
chainConformance({
  name: "simulated chains",
  factory: async () => {
    const clock = new ManualClock();
    const sim = new SimulatedChains({ clock });
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
        paidAt = sim.height("base") + 1;
        sim.pay({ chain: "base", asset: "USDC", address, amount });
      },
      async reorgLastPayment() {
        sim.reorg("base", sim.height("base") - paidAt! + 1);
      },
      async failNext() {
        failing = !failing;
        sim.failNext("base", 1, failing ? "reverted" : "rejected");
      },
      async close() {},
    };
  },
});

chainConformance({ name: "evm (hardhat in process)", factory: evmHarness });

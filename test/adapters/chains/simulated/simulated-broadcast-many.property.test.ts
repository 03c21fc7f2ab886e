import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../../adapters/clock";
import { SimulatedChains } from "../../../../adapters/chains/simulated";
import type { BroadcastOutcome, OutboundTransfer } from "../../../../src/ports/chain";

/**
 * `SimulatedChains.broadcastMany` (what a chunk of a batch is sent through) against the
 * `broadcast` calls it stands for: the same transfers, split into calls of any sizes in one
 * simulation and sent one by one in a twin, get the same outcomes (hashes, refusals when the hot
 * wallet runs dry, a repeated id's first outcome, a failing address), leave the same liquidity,
 * and report the same statuses as blocks pass. Liquidity is small, so refusals happen.
 */
const LIQUIDITY = "40"; // USDC on base; transfers of 1 to 12 USDC
const GOOD = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const DEAD = "0x000000000000000000000000000000000000dEaD";

const transfer = fc.record({
  id: fc.integer({ min: 0, max: 15 }),
  units: fc.integer({ min: 1, max: 12 }),
  dead: fc.boolean(),
});
const scenario = fc.record({
  transfers: fc.array(transfer, { minLength: 1, maxLength: 30 }),
  // sizes of the successive broadcastMany calls (the last takes what is left)
  cuts: fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 10 }),
  failNext: fc.integer({ min: 0, max: 3 }),
});

function world(): { sim: SimulatedChains; clock: ManualClock } {
  const clock = new ManualClock();
  return { sim: new SimulatedChains({ clock, chains: { base: { liquidity: { USDC: LIQUIDITY } } } }), clock };
}

describe("simulated chains: broadcastMany", () => {
  it("answers as broadcast one by one, in any split, and leaves the same chain", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ transfers, cuts, failNext }) => {
        // a repeated id is a repeat of the same transfer (the engine's leg id), as the engine sends it
        const first = new Map<number, (typeof transfers)[number]>();
        for (const t of transfers) if (!first.has(t.id)) first.set(t.id, t);
        const sent: OutboundTransfer[] = transfers.map(({ id }) => {
          const t = first.get(id)!;
          return { transferId: `leg_${id}`, chain: "base", asset: "USDC", amount: BigInt(t.units) * 1_000_000n, to: t.dead ? DEAD : GOOD };
        });
        const many = world();
        const one = world();
        many.sim.failNext("base", failNext, "rejected");
        one.sim.failNext("base", failNext, "rejected");

        const byMany: BroadcastOutcome[] = [];
        let at = 0;
        for (const cut of [...cuts, sent.length]) {
          if (at >= sent.length) break;
          byMany.push(...(await many.sim.broadcastMany(sent.slice(at, at + cut))));
          at += cut;
        }
        const byOne: BroadcastOutcome[] = [];
        for (const t of sent) byOne.push(await one.sim.broadcast(t));

        expect(byMany).toEqual(byOne);
        expect(await many.sim.liquidity("base", "USDC")).toBe(await one.sim.liquidity("base", "USDC"));
        // a repeat after the calls still answers the first outcome
        for (const [i, t] of sent.entries()) expect(await many.sim.broadcast(t)).toEqual(byOne[i]);

        const hashes = byOne.flatMap((o) => ("txHash" in o ? [o.txHash] : []));
        for (let block = 0; block < 8; block++) {
          const statuses = await many.sim.transferStatusMany("base", hashes);
          const single = [];
          for (const h of hashes) single.push(await one.sim.transferStatus("base", h));
          expect(statuses).toEqual(single);
          many.clock.advance(500);
          one.clock.advance(500);
        }
      }),
      { numRuns: 150 },
    );
  });
});

import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { ExecutionPending } from "../../../../adapters/venues/uniswap-v2";
import { venueConformance } from "../../../../src/conformance";
import type { VenueSnapshot } from "../../../../src/ports/venue";
import { OrderPricer } from "../../../../src/quoting/order-pricer";
import { venueOut } from "../../../../src/quoting/venue-curves";
import { savedTransaction, uniswapRig, type UniswapRig } from "../../../support/evm/uniswap-harness";
import { uniswapWorld, type UniswapWorld } from "../../../support/evm/uniswap-world";

const E6 = 10n ** 6n;
const E18 = 10n ** 18n;

/** The path of assets a venue name stands for, in the direction from → to. */
function pathOf(venue: string, from: string, to: string): string[] {
  const parts = venue.split(":")[1]!.split("-");
  const path = parts[0] === from ? parts : parts.reverse();
  expect(path[0]).toBe(from);
  expect(path[path.length - 1]).toBe(to);
  return path;
}

venueConformance({
  name: "Uniswap v2 on hardhat",
  factory: async () => {
    const w = await uniswapWorld();
    await w.restore();
    const rig = uniswapRig(w);
    return {
      adapter: rig.venues,
      pairs: [
        ["USDC", "USDT"],
        ["EURC", "USDC"],
        ["ETH", "USDC"],
      ],
      now: () => rig.clock.now(),
    };
  },
});

describe("Uniswap v2 venues against the published contracts", () => {
  let w: UniswapWorld;
  let rig: UniswapRig;

  beforeEach(async () => {
    w = await uniswapWorld();
    await w.restore();
    rig = uniswapRig(w);
  });

  it("offers the direct pool and the routes through other pools, each as what it is", async () => {
    const usdcUsdt = await rig.venues.snapshot("USDC", "USDT");
    expect(usdcUsdt.map((s) => [s.venue, s.kind])).toEqual([
      ["uniswap-v2-ethereum:USDC-USDT", "pool"],
      ["uniswap-v2-ethereum:USDC-ETH-USDT", "route"],
    ]);
    // no EURC/USDC pool: only the route through ETH
    const eurc = await rig.venues.snapshot("EURC", "USDC");
    expect(eurc.map((s) => [s.venue, s.kind])).toEqual([["uniswap-v2-ethereum:EURC-ETH-USDC", "route"]]);
    expect(await rig.venues.snapshot("USDC", "BTC")).toEqual([]);
    for (const s of [...usdcUsdt, ...eurc]) expect(s.networkCost > 0n).toBe(true);
  });

  it("prices every split exactly as the router's getAmountsOut, to the base unit", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<[string, string]>(["USDC", "USDT"], ["USDT", "USDC"], ["EURC", "USDC"], ["USDC", "ETH"], ["ETH", "EURC"]),
        fc.bigInt(1n, 2_000_000n),
        async ([from, to], whole) => {
          const amount = whole * (from === "ETH" ? 10n ** 15n : E6);
          const snapshots = await rig.venues.snapshot(from, to);
          const priced = new OrderPricer(snapshots, 0n).price(amount);
          if (priced.isErr()) return; // beyond the pools' depth
          for (const leg of priced.value.legs) {
            const amounts = await w.amountsOut(leg.amountIn, pathOf(leg.venue, from, to));
            expect(leg.amountOut).toBe(amounts[amounts.length - 1]);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  /** Prices `amount` now and executes it as priced; the hot wallet's balances before and after. */
  const priceAndExecute = async (from: string, to: string, amount: bigint, id: string, between?: () => Promise<void>) => {
    const snapshots = await rig.venues.snapshot(from, to);
    const priced = new OrderPricer(snapshots, 0n).price(amount)._unsafeUnwrap();
    await between?.();
    const before = { from: await w.balance(from, w.hot), to: await w.balance(to, w.hot) };
    const result = await rig.venues.execute({
      executionId: id,
      from,
      to,
      pricedAt: rig.clock.now(),
      legs: priced.legs.map((l) => ({ venue: l.venue, amountIn: l.amountIn, minAmountOut: l.amountOut })),
    });
    const after = { from: await w.balance(from, w.hot), to: await w.balance(to, w.hot) };
    return { priced, result, moved: { from: before.from - after.from, to: after.to - before.to } };
  };

  it("swaps a split through the router: the hot wallet receives exactly the quoted amount when nobody trades in between", async () => {
    const { priced, result, moved } = await priceAndExecute("USDC", "USDT", 400_000n * E6, "sw_split");
    expect(priced.legs.length).toBe(2); // the direct pool and the route through ETH
    expect(result.status).toBe("executed");
    if (result.status !== "executed") return;
    expect(result.legs.map(({ venue, amountIn, amountOut }) => ({ venue, amountIn, amountOut }))).toEqual(
      priced.legs.map((l) => ({ venue: l.venue, amountIn: l.amountIn, amountOut: l.amountOut })),
    );
    // each leg names the transaction that carried it, as the chain has it
    for (const leg of result.legs) {
      expect(leg.path).toEqual(leg.venue.endsWith("USDC-USDT") ? ["USDC", "USDT"] : ["USDC", "ETH", "USDT"]);
      const receipt = await w.node.provider.request({ method: "eth_getTransactionReceipt", params: [leg.transaction!.txHash] });
      expect(receipt.status).toBe("0x1");
      expect(Number(BigInt(receipt.blockNumber))).toBe(leg.transaction!.block);
    }
    expect(moved).toEqual({ from: 400_000n * E6, to: priced.grossOut });
  });

  it("swaps along a route where no direct pool exists (EURC → ETH → USDC)", async () => {
    const { priced, result, moved } = await priceAndExecute("EURC", "USDC", 10_000n * E6, "sw_route");
    expect(priced.legs.map((l) => l.venue)).toEqual(["uniswap-v2-ethereum:EURC-ETH-USDC"]);
    expect(result.status).toBe("executed");
    expect(moved).toEqual({ from: 10_000n * E6, to: priced.grossOut });
  });

  it("sells and buys native ETH through the router's ETH functions", async () => {
    const sell = await rig.venues.snapshot("ETH", "USDC");
    const pricedSell = new OrderPricer(sell, 0n).price(2n * E18)._unsafeUnwrap();
    const usdcBefore = await w.balance("USDC", w.hot);
    const sold = await rig.venues.execute({
      executionId: "sw_eth_in",
      from: "ETH",
      to: "USDC",
      pricedAt: 0,
      legs: pricedSell.legs.map((l) => ({ venue: l.venue, amountIn: l.amountIn, minAmountOut: l.amountOut })),
    });
    expect(sold.status).toBe("executed");
    expect((await w.balance("USDC", w.hot)) - usdcBefore).toBe(pricedSell.grossOut);

    const { result, moved, priced } = await priceAndExecute("USDC", "ETH", 3_000n * E6, "sw_eth_out");
    expect(result.status).toBe("executed");
    // the hot wallet also paid gas in ETH (the operator's cost): what it received is at most that much less
    expect(moved.to <= priced.grossOut).toBe(true);
    expect(moved.to > priced.grossOut - 10n ** 16n).toBe(true);
  });

  it("a third party trading first in the same direction makes the swap revert at amountOutMin: refused, nothing received", async () => {
    await priceAndExecute("USDC", "USDT", 1n * E6, "sw_warmup"); // approval out of the way: the next transaction is the swap
    let traded = false;
    rig.onSend(async () => {
      if (!traded) {
        traded = true;
        await w.trade(50_000n * E6, ["USDC", "USDT"]); // mined after our estimate, before ours: our pool now pays less
      }
      return "send";
    });
    const snapshots = await rig.venues.snapshot("USDC", "USDT");
    const direct = snapshots.find((s) => s.kind === "pool")!;
    const amountIn = 10_000n * E6;
    const before = await w.balance("USDT", w.hot);
    const result = await rig.venues.execute({
      executionId: "sw_front",
      from: "USDC",
      to: "USDT",
      pricedAt: 0,
      legs: [{ venue: direct.venue, amountIn, minAmountOut: venueOut(direct, amountIn) }],
    });
    expect(result).toMatchObject({ status: "rejected", reason: expect.stringContaining("reverted") });
    expect(await w.balance("USDT", w.hot)).toBe(before);
  });

  it("a third party trading the other way in between improves the executed amount, and the result follows the receipt", async () => {
    // approve once beforehand, so the only transaction of the execution is the swap
    await priceAndExecute("USDC", "USDT", 1n * E6, "sw_warmup");
    let traded = false;
    rig.onSend(async () => {
      if (!traded) {
        traded = true;
        await w.trade(50_000n * E6, ["USDT", "USDC"]); // USDT into the pool: USDT now cheaper for us
      }
      return "send";
    });
    const snapshots = await rig.venues.snapshot("USDC", "USDT");
    const direct = snapshots.find((s) => s.kind === "pool")!;
    const amountIn = 10_000n * E6;
    const quoted = venueOut(direct, amountIn);
    const before = await w.balance("USDT", w.hot);
    const result = await rig.venues.execute({
      executionId: "sw_improved",
      from: "USDC",
      to: "USDT",
      pricedAt: 0,
      legs: [{ venue: direct.venue, amountIn, minAmountOut: quoted }],
    });
    expect(result.status).toBe("executed");
    if (result.status !== "executed") return;
    const received = (await w.balance("USDT", w.hot)) - before;
    expect(result.legs[0]!.amountOut).toBe(received);
    expect(received > quoted).toBe(true);
  });

  it("a crash between signing and sending neither loses nor doubles the swap: restarted, the same transaction is sent once", async () => {
    await priceAndExecute("USDC", "USDT", 1n * E6, "sw_warmup"); // approval out of the way
    const crashed = uniswapRig(w, { storage: rig.storage, clock: rig.clock, waitMs: 50 });
    const dropped: string[] = [];
    crashed.onSend(async (_raw, hash) => {
      expect(await savedTransaction(rig.storage, hash)).toBe(true); // saved before it is sent
      dropped.push(hash);
      return "drop";
    });
    const snapshots = await crashed.venues.snapshot("USDC", "USDT");
    const direct = snapshots.find((s) => s.kind === "pool")!;
    const amountIn = 25_000n * E6;
    const request = {
      executionId: "sw_crash",
      from: "USDC",
      to: "USDT",
      pricedAt: 0,
      legs: [{ venue: direct.venue, amountIn, minAmountOut: venueOut(direct, amountIn) }],
    };
    const before = { usdc: await w.balance("USDC", w.hot), usdt: await w.balance("USDT", w.hot) };
    await expect(crashed.venues.execute(request)).rejects.toBeInstanceOf(ExecutionPending);
    // re-sent while it waited (the node never had it), always the same signed bytes
    expect(new Set(dropped).size).toBe(1);
    expect(await w.balance("USDC", w.hot)).toBe(before.usdc); // nothing reached the chain

    const restarted = uniswapRig(w, { storage: rig.storage, clock: rig.clock });
    const sent: string[] = [];
    restarted.onSend(async (_raw, hash) => {
      sent.push(hash);
      return "send";
    });
    const result = await restarted.venues.execute(request);
    expect(result.status).toBe("executed");
    expect(sent).toEqual([dropped[0]]); // the same signed bytes, mined at once
    expect(await restarted.venues.execute(request)).toEqual(result); // and never again
    expect(sent).toHaveLength(1);
    expect(before.usdc - (await w.balance("USDC", w.hot))).toBe(amountIn);
    if (result.status === "executed") expect((await w.balance("USDT", w.hot)) - before.usdt).toBe(result.legs[0]!.amountOut);
  });

  it("chain and venue agree: whatever a third party does first, the hot wallet moves exactly as the result says, or not at all", async () => {
    await priceAndExecute("USDC", "USDT", 1n * E6, "sw_warmup_usdc");
    await priceAndExecute("EURC", "USDC", 1n * E6, "sw_warmup_eurc");
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<[string, string]>(["USDC", "USDT"], ["EURC", "USDC"]),
        fc.bigInt(1n, 200_000n),
        fc.option(fc.record({ size: fc.bigInt(1n, 100_000n), ourWay: fc.boolean() }), { nil: null }),
        async ([from, to], whole, third) => {
          const id = `sw_prop_${run++}`;
          const path = from === "EURC" ? [from, "ETH", to] : [from, to]; // no EURC/USDC pool
          const between = third ? () => w.trade(third.size * E6, third.ourWay ? [...path].reverse() : path) : undefined;
          const { result, moved } = await priceAndExecute(from, to, whole * E6, id, between);
          if (result.status === "executed") {
            expect(moved).toEqual({ from: whole * E6, to: result.legs.reduce((sum, l) => sum + l.amountOut, 0n) });
          } else {
            expect(moved).toEqual({ from: 0n, to: 0n });
            expect(third).not.toBeNull(); // nobody in between: never refused
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it("refuses a leg the pools cannot pay, and a venue it does not offer, sending nothing", async () => {
    const sent: string[] = [];
    rig.onSend(async (_raw, hash) => {
      sent.push(hash);
      return "send";
    });
    const [s] = (await rig.venues.snapshot("USDC", "USDT")) as VenueSnapshot[];
    const greedy = await rig.venues.execute({
      executionId: "sw_greedy",
      from: "USDC",
      to: "USDT",
      pricedAt: 0,
      legs: [{ venue: s!.venue, amountIn: E6, minAmountOut: venueOut(s!, E6) + 1n }],
    });
    expect(greedy).toMatchObject({ status: "rejected" });
    const elsewhere = await rig.venues.execute({
      executionId: "sw_nowhere",
      from: "USDC",
      to: "USDT",
      pricedAt: 0,
      legs: [{ venue: "sim-pool-base", amountIn: E6, minAmountOut: 0n }],
    });
    expect(elsewhere).toMatchObject({ status: "rejected" });
    expect(sent).toEqual([]);
  });
});

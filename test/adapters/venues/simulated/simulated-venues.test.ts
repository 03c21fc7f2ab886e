import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../../adapters/clock";
import { SimulatedVenues } from "../../../../adapters/venues/simulated";
import type { BookSnapshot, PoolSnapshot } from "../../../../src/ports/venue";
import { venueOut } from "../../../../src/quoting/venue-curves";

const venuesAt = (seed: number) => {
  const clock = new ManualClock();
  return { clock, venues: new SimulatedVenues({ clock, seed }) };
};

describe("simulated venues", () => {
  it("are a deterministic function of the seed and the clock", async () => {
    const a = venuesAt(3);
    const b = venuesAt(3);
    expect(await a.venues.snapshot("ETH", "USDC")).toEqual(await b.venues.snapshot("ETH", "USDC"));
    a.clock.advance(90_000);
    b.clock.advance(90_000);
    expect(await a.venues.snapshot("BTC", "SOL")).toEqual(await b.venues.snapshot("BTC", "SOL"));
    expect(await venuesAt(4).venues.snapshot("ETH", "USDC")).not.toEqual(await venuesAt(3).venues.snapshot("ETH", "USDC"));
  });

  it("move prices as the clock moves, and only then", async () => {
    const { clock, venues } = venuesAt(1);
    const before = await venues.snapshot("ETH", "USDC");
    expect(await venues.snapshot("ETH", "USDC")).toEqual(before);
    const prices = new Set<bigint>();
    for (let i = 0; i < 12; i++) {
      prices.add(venues.usdPrice("ETH", clock.now()));
      clock.advance(300_000);
    }
    expect(prices.size).toBe(12);
    const spread = [...prices].reduce((m, p) => (p > m ? p : m), 0n) - [...prices].reduce((m, p) => (p < m ? p : m), 10n ** 30n);
    expect(spread > 3_000_000n).toBe(true); // more than $3 over an hour on a $3,000 asset
    expect(await venues.snapshot("ETH", "USDC")).not.toEqual(before);
  });

  it("show one pool per pair from both sides, and books on their tick and lot grids", async () => {
    const { venues } = venuesAt(1);
    const sell = await venues.snapshot("ETH", "USDC");
    const buy = await venues.snapshot("USDC", "ETH");
    for (const s of sell.filter((v): v is PoolSnapshot => v.kind === "pool")) {
      const mirror = buy.find((v) => v.venue === s.venue) as PoolSnapshot;
      expect([mirror.reserveIn, mirror.reserveOut]).toEqual([s.reserveOut, s.reserveIn]);
    }
    const book = sell.find((v): v is BookSnapshot => v.kind === "book")!;
    // selling ETH walks the bids: prices in USDC units per whole ETH on a 100-unit tick, lots of 10^14 wei
    for (const level of book.levels) {
      expect(level.rateDen).toBe(10n ** 18n);
      expect(level.rateNum % 100n).toBe(0n);
      expect(level.capacityIn % 10n ** 14n).toBe(0n);
    }
    const asks = buy.find((v): v is BookSnapshot => v.kind === "book" && v.venue === book.venue)!;
    // the best ask sits above the best bid (a spread), both near the market
    expect(asks.levels[0]!.rateDen > book.levels[0]!.rateNum).toBe(true);
  });

  it("honour a snapshot they showed within the firm window, and execute at the present after it", async () => {
    const { clock, venues } = venuesAt(1);
    const pricedAt = clock.now();
    const [pool] = (await venues.snapshot("ETH", "USDC")).filter((v) => v.kind === "pool");
    const amountIn = 10n ** 18n;
    const promised = venueOut(pool!, amountIn);
    clock.advance(599_000);
    const firm = await venues.execute({
      executionId: "a",
      from: "ETH",
      to: "USDC",
      pricedAt,
      legs: [{ venue: pool!.venue, amountIn, minAmountOut: promised }],
    });
    expect(firm).toEqual({ status: "executed", legs: [{ venue: pool!.venue, amountIn, amountOut: promised }] });
    clock.advance(2_000); // past the window: today's price, which may fall short
    const late = await venues.execute({ executionId: "b", from: "ETH", to: "USDC", pricedAt, legs: [{ venue: pool!.venue, amountIn, minAmountOut: 0n }] });
    const [now] = (await venues.snapshot("ETH", "USDC")).filter((v) => v.venue === pool!.venue);
    expect(late).toEqual({ status: "executed", legs: [{ venue: pool!.venue, amountIn, amountOut: venueOut(now!, amountIn) }] });
  });

  it("refuse executions at a halted venue until it resumes", async () => {
    const { clock, venues } = venuesAt(1);
    const [v] = await venues.snapshot("ETH", "USDC");
    const leg = { venue: v!.venue, amountIn: 1000n, minAmountOut: 0n };
    venues.halt(v!.venue);
    expect((await venues.execute({ executionId: "h1", from: "ETH", to: "USDC", pricedAt: clock.now(), legs: [leg] })).status).toBe("rejected");
    venues.resume(v!.venue);
    expect((await venues.execute({ executionId: "h2", from: "ETH", to: "USDC", pricedAt: clock.now(), legs: [leg] })).status).toBe("executed");
  });

  it("offer nothing for an asset they do not price", async () => {
    const { venues } = venuesAt(1);
    expect(await venues.snapshot("ETH", "DOGE")).toEqual([]);
    expect(await venues.snapshot("ETH", "ETH")).toEqual([]);
  });
});

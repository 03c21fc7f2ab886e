import { describe, expect, it } from "vitest";
import { uniswapWorld } from "../../../support/evm/uniswap-world";

describe("the Uniswap v2 test world", () => {
  it("deploys the published contracts with liquidity: a router swap receives exactly getAmountsOut", async () => {
    const w = await uniswapWorld();
    await w.restore();
    expect(await w.pair("USDC", "ETH")).not.toBe("0x0000000000000000000000000000000000000000");
    expect(await w.pair("EURC", "USDC")).toBe("0x0000000000000000000000000000000000000000");
    const [, out] = await w.amountsOut(1_000_000_000n, ["USDC", "ETH"]);
    const before = await w.balance("ETH", w.trader);
    const wethBefore = await w.node.tokenBalance(w.weth, w.trader);
    await w.trade(1_000_000_000n, ["USDC", "ETH"]);
    expect((await w.node.tokenBalance(w.weth, w.trader)) - wethBefore).toBe(out);
    expect(before > 0n).toBe(true);
  });
});

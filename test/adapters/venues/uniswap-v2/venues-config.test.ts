import { describe, expect, it } from "vitest";
import { parseVenuesConfig } from "../../../../adapters/venues/uniswap-v2";

const ROUTER = "0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D";
const FACTORY = "0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f";
const chains = { ethereum: { rpc_url: "http://127.0.0.1:8545", tokens: { USDC: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" } } };

describe("PAYRAIL_VENUES", () => {
  it("reads a Uniswap v2 deployment per live chain", () => {
    const config = parseVenuesConfig(
      JSON.stringify({ uniswap_v2: { ethereum: { router: ROUTER, factory: FACTORY, pairs: [["USDC", "ETH"]], confirmations: 2 } } }),
      chains,
    );
    expect(config).toEqual({ uniswap_v2: { ethereum: { router: ROUTER, factory: FACTORY, pairs: [["USDC", "ETH"]], confirmations: 2 } } });
  });

  it.each([
    ["not json", /not valid JSON/],
    ["[]", /must be a JSON object/],
    [JSON.stringify({ sushiswap: {} }), /sushiswap is not a venue kind/],
    [JSON.stringify({ uniswap_v2: { base: { router: ROUTER, factory: FACTORY } } }), /base is not a live chain of PAYRAIL_CHAINS/],
    [JSON.stringify({ uniswap_v2: { ethereum: { router: "0x12", factory: FACTORY } } }), /uniswap_v2\.ethereum\.router must be an EVM address/],
    [JSON.stringify({ uniswap_v2: { ethereum: { router: ROUTER } } }), /factory must be an EVM address/],
    [JSON.stringify({ uniswap_v2: { ethereum: { router: ROUTER, factory: FACTORY, fee: 3 } } }), /ethereum\.fee is not a setting/],
    [
      JSON.stringify({ uniswap_v2: { ethereum: { router: ROUTER, factory: FACTORY, pairs: [["USDC", "BTC"]] } } }),
      /pairs must be pairs of two different assets/,
    ],
    [JSON.stringify({ uniswap_v2: { ethereum: { router: ROUTER, factory: FACTORY, confirmations: 0 } } }), /confirmations must be an integer of at least 1/],
  ])("refuses %s with an error naming the setting", (text, message) => {
    expect(() => parseVenuesConfig(text, chains)).toThrow(message);
  });
});

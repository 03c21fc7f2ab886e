import { describe, expect, it } from "vitest";
import { SolanaChain, parseSolanaChainConfig } from "../../../../adapters/chains/solana";
import { MemoryStorage } from "../../../../adapters/memory";
import { liveChainAdapters } from "../../../../adapters/cli/live-chains";
import { SystemClock } from "../../../../adapters/clock";
import { TEST_MNEMONIC } from "../../../support/evm/evm-node";
import { solanaSigner } from "../../../support/solana/solana-harness";

const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

describe("PAYRAIL_CHAINS on Solana", () => {
  it("reads a Solana entry and refuses every mistake by its field", () => {
    expect(parseSolanaChainConfig("solana", { rpc_url: "http://127.0.0.1:8899", commitment: "finalized", tokens: { USDC: USDC_MINT } })).toEqual({
      rpc_url: "http://127.0.0.1:8899",
      commitment: "finalized",
      tokens: { USDC: USDC_MINT },
    });
    const refused = (entry: unknown) => {
      try {
        parseSolanaChainConfig("solana", entry);
      } catch (e) {
        return (e as Error).message;
      }
      return null;
    };
    expect(refused([])).toBe("PAYRAIL_CHAINS.solana must be an object");
    expect(refused({ rpc_url: "ftp://x" })).toBe("PAYRAIL_CHAINS.solana.rpc_url must be an http(s) URL");
    expect(refused({ rpc_url: "http://x", commitment: "processed" })).toMatch(/^PAYRAIL_CHAINS\.solana\.commitment must be "confirmed" or "finalized"/);
    expect(refused({ rpc_url: "http://x", tokens: { USDC: 5 } })).toBe("PAYRAIL_CHAINS.solana.tokens must map asset codes to strings");
    expect(refused({ rpc_url: "http://x", chain_id: 1 })).toBe("PAYRAIL_CHAINS.solana.chain_id is not a setting");
    expect(refused({ rpc_url: "http://x", finality_confirmations: 0 })).toBe("PAYRAIL_CHAINS.solana.finality_confirmations must be an integer of at least 1");
    expect(refused({ rpc_url: "http://x", min_priority_fee: 10, max_priority_fee: 5 })).toBe(
      "PAYRAIL_CHAINS.solana.min_priority_fee must not exceed max_priority_fee",
    );
  });

  it("refuses mints and rates the registry cannot take when the adapter is made", () => {
    const make = (tokens: Record<string, string>, feeRates?: Record<string, string>) => () =>
      new SolanaChain({ rpcUrl: "http://127.0.0.1:1", storage: new MemoryStorage(), signer: solanaSigner, tokens, ...(feeRates ? { feeRates } : {}) });
    expect(make({ USDC: "not-base58!" })).toThrow("solana: the USDC mint is not a Solana address");
    expect(make({ ETH: USDC_MINT })).toThrow("solana: ETH is not an asset of this chain");
    expect(make({}, { USDC: "cheap" })).toThrow();
    expect(() => new SolanaChain({ chain: "base", rpcUrl: "http://x", storage: new MemoryStorage(), signer: solanaSigner, tokens: {} })).toThrow(
      "base is not a Solana chain of the asset registry",
    );
  });

  it("the host makes the Solana adapter beside the EVM ones from one PAYRAIL_CHAINS and one mnemonic", async () => {
    const deps = { storage: new MemoryStorage(), clock: new SystemClock(), venues: [] };
    const live = await liveChainAdapters(
      {
        chains: JSON.stringify({
          base: { rpc_url: "http://127.0.0.1:1", tokens: { USDC: "0x0000000000000000000000000000000000000001" } },
          solana: { rpc_url: "http://127.0.0.1:2", tokens: { USDC: USDC_MINT } },
        }),
        mnemonic: TEST_MNEMONIC,
      },
      deps,
    );
    expect(live.adapters.map((a) => a.name)).toEqual(["evm:base", "solana:solana"]);
    expect(live.hotWallets.solana).toBe(await solanaSigner.address(0));
    expect(live.hotWallets.base).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await expect(liveChainAdapters({ chains: JSON.stringify({ solana: { rpc_url: "http://x" } }) }, deps)).rejects.toThrow(
      "PAYRAIL_CHAINS needs PAYRAIL_SIGNER_MNEMONIC",
    );
    await expect(liveChainAdapters({ chains: JSON.stringify({ bitcoin: { rpc_url: "http://x" } }), mnemonic: TEST_MNEMONIC }, deps)).rejects.toThrow(
      "PAYRAIL_CHAINS.bitcoin: no live adapter serves the bitcoin family yet",
    );
  });
});

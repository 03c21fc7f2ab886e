import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { addressProblem, toChecksumAddress } from "../../src/chains/chain-address";

describe("chain addresses", () => {
  it.each([
    // EIP-55 test vectors
    ["evm", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    ["evm", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"],
    ["evm", "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"],
    ["evm", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"],
    ["evm", "0x52908400098527886e0f7030069857d2e4169ee7"],
    ["evm", "0x8617E340B3D01FA5F11F306F4090FD50E238070D"],
    ["solana", "So11111111111111111111111111111111111111112"],
    ["solana", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"],
    ["bitcoin", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["bitcoin", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4"],
    ["bitcoin", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"],
    ["bitcoin", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
    ["bitcoin", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"],
  ] as const)("accepts the %s address %s", (family, address) => {
    expect(addressProblem(family, address)).toBeNull();
  });

  it.each([
    ["evm", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", "checksum"],
    ["evm", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA", "40 hexadecimal"],
    ["evm", "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "40 hexadecimal"],
    ["solana", "0OIl1111111111111111111111111111111111111112", "base58"],
    ["solana", "So1111111111111111111111111111111", "32 bytes"],
    ["bitcoin", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", "checksum"],
    ["bitcoin", "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "mainnet"],
    ["bitcoin", "bc1Qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "mixes"],
    ["bitcoin", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb", "checksum"],
    ["bitcoin", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "mainnet"],
  ] as const)("refuses the %s address %s (%s)", (family, address, why) => {
    expect(addressProblem(family, address)).toContain(why);
  });

  test.prop([fc.uint8Array({ minLength: 20, maxLength: 20 })])("checksummed EVM addresses validate, and any one flipped letter case does not", (bytes) => {
    const address = toChecksumAddress(`0x${Buffer.from(bytes).toString("hex")}`);
    expect(addressProblem("evm", address)).toBeNull();
    const letters = [...address].map((c, i) => (i > 1 && /[a-fA-F]/.test(c) ? i : -1)).filter((i) => i >= 0);
    const upper = address.slice(2) === address.slice(2).toUpperCase();
    const lower = address.slice(2) === address.slice(2).toLowerCase();
    if (letters.length < 2 || upper || lower) return;
    const i = letters[0]!;
    const c = address[i]!;
    const flipped = address.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(i + 1);
    const flippedBody = flipped.slice(2);
    if (flippedBody === flippedBody.toLowerCase() || flippedBody === flippedBody.toUpperCase()) return;
    expect(addressProblem("evm", flipped)).toContain("checksum");
  });
});

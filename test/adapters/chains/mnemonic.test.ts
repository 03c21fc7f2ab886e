import { describe, expect, it } from "vitest";
import { MnemonicSigner } from "../../../adapters/chains/evm";
import { MnemonicSolanaSigner } from "../../../adapters/chains/solana";
import { checkMnemonic } from "../../../adapters/chains/mnemonic";
import { TEST_MNEMONIC } from "../../support/evm/evm-node";

/** Mistakes a person makes copying twelve words: each must be refused by both families, never derived into a new wallet. */
const MISTAKES: [string, string, string][] = [
  ["a bad checksum (the last word another of the list)", TEST_MNEMONIC.replace(/about$/, "abandon"), "fails its BIP-39 checksum"],
  ["two words swapped", TEST_MNEMONIC.replace("abandon abandon about", "abandon about abandon"), "fails its BIP-39 checksum"],
  ["a misspelt word", TEST_MNEMONIC.replace(/^abandon/, "abandn"), "word 1 is not in the BIP-39 English list"],
  ["two misspelt words", TEST_MNEMONIC.replace(/^abandon/, "abandn").replace(/about$/, "abot"), "words 1, 12 are not in the BIP-39 English list"],
  ["a word too few", TEST_MNEMONIC.replace(/^abandon /, ""), "must have 12, 15, 18, 21 or 24 words (it has 11)"],
];

describe("a signer mnemonic is checked alike for every chain family", () => {
  it.each(MISTAKES)("refuses %s on EVM and on Solana, naming no word", (_, mnemonic, message) => {
    for (const make of [() => new MnemonicSigner(mnemonic), () => new MnemonicSolanaSigner(mnemonic)]) {
      let thrown: Error | null = null;
      try {
        make();
      } catch (e) {
        thrown = e as Error;
      }
      expect(thrown?.message).toContain(message);
      expect(thrown?.message).not.toMatch(/abandn|abot|about/); // what was given may be a real key with a typo
    }
  });

  it("takes spacing and case as the same words, and derives the same keys from them", async () => {
    const messy = `  ${TEST_MNEMONIC.toUpperCase().split(" ").join("   ")}\n`;
    expect(checkMnemonic(messy)).toBe(TEST_MNEMONIC);
    expect(await new MnemonicSigner(messy).address(0)).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
    // the Solana path of this mnemonic's key 0, as Phantom and solana-keygen derive it
    expect(await new MnemonicSolanaSigner(messy).address(0)).toBe(await new MnemonicSolanaSigner(TEST_MNEMONIC).address(0));
    expect(() => checkMnemonic(TEST_MNEMONIC.replace(/about$/, "abandon"), "PAYRAIL_SIGNER_MNEMONIC")).toThrow(
      "PAYRAIL_SIGNER_MNEMONIC fails its BIP-39 checksum",
    );
  });
});

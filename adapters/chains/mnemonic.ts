import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";

const WORDS = new Set(wordlist);

/**
 * The one check of a BIP-39 mnemonic for every chain family's signer (EVM and Solana alike): 12,
 * 15, 18, 21 or 24 words of the English list whose last bits are the checksum of the rest
 * (`@scure/bip39`). Returns the mnemonic normalised (lowercase, single spaces, NFKD), which is
 * what keys are derived from. A typo is refused, never derived: a mistyped word or a bad
 * checksum would otherwise be a different, empty wallet with new deposit addresses. The error
 * names the setting and, for a word not in the list, its position, never a word: what was
 * given may be a real key with a typo.
 */
export function checkMnemonic(mnemonic: string, setting = "the signer mnemonic"): string {
  const words = mnemonic.normalize("NFKD").trim().toLowerCase().split(/\s+/);
  if (![12, 15, 18, 21, 24].includes(words.length)) {
    throw new TypeError(`${setting} must have 12, 15, 18, 21 or 24 words (it has ${words.length})`);
  }
  const unknown = words.flatMap((word, i) => (WORDS.has(word) ? [] : [i + 1]));
  if (unknown.length > 0) {
    throw new TypeError(
      `${setting}: word${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} ${unknown.length > 1 ? "are" : "is"} not in the BIP-39 English list`,
    );
  }
  const normalised = words.join(" ");
  if (!validateMnemonic(normalised, wordlist)) {
    throw new TypeError(`${setting} fails its BIP-39 checksum: a word is mistyped as another word of the list, or the words are out of order`);
  }
  return normalised;
}

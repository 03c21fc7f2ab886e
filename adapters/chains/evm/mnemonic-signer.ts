import { sha256 } from "@noble/hashes/sha256";
import { english, mnemonicToAccount, type HDAccount } from "viem/accounts";
import type { EvmSigner, EvmTransactionRequest } from "./evm-signer";

/**
 * The signer of DECISIONS.md §9: key `i` is m/44'/60'/0'/0/i of a BIP-39 mnemonic (index 0 the
 * hot wallet, 1 and up deposit addresses). The mnemonic lives only in a private field; the
 * signer prints as `[mnemonic signer 0x…]` and its errors never contain key material.
 */
export class MnemonicSigner implements EvmSigner {
  readonly name = "mnemonic";
  readonly #mnemonic: string;
  readonly #accounts = new Map<number, HDAccount>();

  constructor(mnemonic: string) {
    const normalized = mnemonic.trim().toLowerCase().split(/\s+/).join(" ");
    if (!isValidMnemonic(normalized)) {
      // never echo what was given: it may be a real key with a typo
      throw new TypeError("the signer mnemonic is not a valid BIP-39 English mnemonic");
    }
    this.#mnemonic = normalized;
  }

  async address(index: number): Promise<string> {
    return this.account(index).address;
  }

  async signTransaction(index: number, tx: EvmTransactionRequest): Promise<string> {
    return this.account(index).signTransaction({
      type: "eip1559",
      chainId: tx.chainId,
      nonce: tx.nonce,
      to: tx.to as `0x${string}`,
      value: tx.value,
      data: tx.data as `0x${string}`,
      gas: tx.gas,
      maxFeePerGas: tx.maxFeePerGas,
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    });
  }

  toString(): string {
    return `[mnemonic signer ${this.account(0).address}]`;
  }

  toJSON(): string {
    return this.toString();
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toString();
  }

  private account(index: number): HDAccount {
    if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31) throw new RangeError("key index must be an integer from 0 to 2^31 - 1");
    let account = this.#accounts.get(index);
    if (!account) {
      account = mnemonicToAccount(this.#mnemonic, { addressIndex: index });
      this.#accounts.set(index, account);
    }
    return account;
  }
}

const WORD_INDEX = new Map(english.map((word, i) => [word, i]));

/** BIP-39: 12 to 24 words of the English list whose last bits are the checksum of the entropy. */
function isValidMnemonic(mnemonic: string): boolean {
  const words = mnemonic.split(" ");
  if (words.length < 12 || words.length > 24 || words.length % 3 !== 0) return false;
  let bits = "";
  for (const word of words) {
    const index = WORD_INDEX.get(word);
    if (index === undefined) return false;
    bits += index.toString(2).padStart(11, "0");
  }
  const checksumBits = words.length / 3;
  const entropyBits = bits.slice(0, bits.length - checksumBits);
  const entropy = Uint8Array.from(entropyBits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
  const hash = sha256(entropy);
  const expected = [...hash]
    .map((b) => b.toString(2).padStart(8, "0"))
    .join("")
    .slice(0, checksumBits);
  return expected === bits.slice(bits.length - checksumBits);
}

import { mnemonicToAccount, type HDAccount } from "viem/accounts";
import { checkMnemonic } from "../mnemonic";
import type { EvmSigner, EvmTransactionRequest } from "./evm-signer";

/**
 * The signer of docs/decisions.md §9: key `i` is m/44'/60'/0'/0/i of a BIP-39 mnemonic (index 0 the
 * hot wallet, 1 and up deposit addresses). A mnemonic with a word outside the list or a bad
 * checksum is refused (`checkMnemonic`, the same check as the Solana signer's). The mnemonic
 * lives only in a private field; the signer prints as `[mnemonic signer 0x…]` and its errors
 * never contain key material.
 */
export class MnemonicSigner implements EvmSigner {
  readonly name = "mnemonic";
  readonly #mnemonic: string;
  readonly #accounts = new Map<number, HDAccount>();

  constructor(mnemonic: string) {
    this.#mnemonic = checkMnemonic(mnemonic);
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

/**
 * The EVM signer: the keys of the engine's EVM wallets, behind one interface so a host can
 * keep them in a KMS, an HSM or a custody API instead of a mnemonic in the environment
 * (docs/decisions.md §9). Key `0` is the hot wallet (it sends payouts and pays gas); keys `1` and up
 * are payment-intent deposit addresses, one per intent and chain, never reused. `MnemonicSigner`
 * derives key `i` at m/44'/60'/0'/0/i. A port of the EVM adapter, not of the core: another chain
 * family brings its own signer with its adapter.
 *
 * The EVM chain adapter calls it outside storage transactions except `signTransaction`, which
 * it calls inside the transaction that takes the nonce, so a nonce is never taken without its
 * signed transaction being saved: a remote signer should answer within a second or two.
 * Implementations must never put key material in errors, logs or `toString`/`toJSON` output.
 */
export interface EvmSigner {
  /** Name for error messages, e.g. `mnemonic`, `kms`. */
  readonly name: string;
  /** The checksummed address of key `index`; the same index always gives the same address. */
  address(index: number): Promise<string>;
  /**
   * Signs an EIP-1559 transaction with key `index` and returns it serialized, signature
   * included (0x-prefixed hex), ready for `eth_sendRawTransaction`. Must sign exactly what it is
   * given: the adapter saves the bytes and re-sends them as they are.
   */
  signTransaction(index: number, tx: EvmTransactionRequest): Promise<string>;
}

/** An EIP-1559 (type 2) transaction to sign; amounts in wei, gas in units. */
export interface EvmTransactionRequest {
  chainId: number;
  nonce: number;
  to: string;
  value: bigint;
  /** Call data, 0x-prefixed hex (`0x` for a plain value transfer). */
  data: string;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

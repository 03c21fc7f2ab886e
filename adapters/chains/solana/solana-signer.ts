import { hmac } from "@noble/hashes/hmac";
import { pbkdf2 } from "@noble/hashes/pbkdf2";
import { sha512 } from "@noble/hashes/sha2";
import { createKeyPairFromPrivateKeyBytes, getAddressFromPublicKey, signBytes } from "@solana/kit";
import { checkMnemonic } from "../mnemonic";

/**
 * Where the Solana adapter's keys live: key 0 is the hot wallet (it pays every fee), keys 1 and
 * up are deposit addresses, one per payment intent. `MnemonicSolanaSigner` derives them from a
 * BIP-39 mnemonic; a KMS, an HSM or a custody API implements the same two methods.
 */
export interface SolanaSigner {
  /** The base58 address (ed25519 public key) of key `index`. */
  address(index: number): Promise<string>;
  /** The 64-byte ed25519 signature of `message` (a compiled transaction message) by key `index`. */
  sign(index: number, message: Uint8Array): Promise<Uint8Array>;
}

const HARDENED = 0x8000_0000;

/**
 * SLIP-0010 ed25519 derivation (every step hardened, the only kind ed25519 has) of the 32-byte
 * private key at `path` from a BIP-32 seed.
 */
export function deriveEd25519(seed: Uint8Array, path: readonly number[]): Uint8Array {
  let I = hmac(sha512, new TextEncoder().encode("ed25519 seed"), seed);
  for (const index of path) {
    const data = new Uint8Array(37);
    data.set(I.slice(0, 32), 1);
    new DataView(data.buffer).setUint32(33, (index | HARDENED) >>> 0, false);
    I = hmac(sha512, I.slice(32), data);
  }
  return I.slice(0, 32);
}

/** The Solana wallets' path of account `i`: `m/44'/501'/i'/0'` (Phantom, Solflare, solana-keygen with `--derivation-path`). */
export const solanaPath = (i: number): number[] => [44, 501, i, 0];

/**
 * Keys derived from a BIP-39 mnemonic (the seed is PBKDF2-HMAC-SHA512 of the normalised words,
 * 2048 rounds) along `m/44'/501'/i'/0'`. A mnemonic with a word outside the list or a bad
 * checksum is refused (`checkMnemonic`, the same check as the EVM signer's): a typo must not
 * become a new, empty hot wallet. Signing runs on WebCrypto's Ed25519 (Node 20).
 */
export class MnemonicSolanaSigner implements SolanaSigner {
  private readonly seed: Uint8Array;
  private readonly keys = new Map<number, Promise<{ pair: CryptoKeyPair; address: string }>>();

  constructor(mnemonic: string, passphrase = "") {
    const normalised = checkMnemonic(mnemonic);
    this.seed = pbkdf2(sha512, new TextEncoder().encode(normalised), new TextEncoder().encode(`mnemonic${passphrase}`.normalize("NFKD")), {
      c: 2048,
      dkLen: 64,
    });
  }

  async address(index: number): Promise<string> {
    return (await this.key(index)).address;
  }

  async sign(index: number, message: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(await signBytes((await this.key(index)).pair.privateKey, message));
  }

  private key(index: number) {
    if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED) throw new TypeError(`key index ${index} out of range`);
    let key = this.keys.get(index);
    if (!key) {
      key = (async () => {
        const pair = await createKeyPairFromPrivateKeyBytes(deriveEd25519(this.seed, solanaPath(index)));
        return { pair, address: await getAddressFromPublicKey(pair.publicKey) };
      })();
      this.keys.set(index, key);
    }
    return key;
  }
}

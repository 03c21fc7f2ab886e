import { sha256 } from "@noble/hashes/sha256";
import { keccak_256 } from "@noble/hashes/sha3";
import { base58, bech32, bech32m } from "@scure/base";
import type { ChainFamily } from "../money/assets";

/**
 * Address formats per chain family (docs/decisions.md §4: "validated per chain format"):
 * - evm: `0x` + 40 hex digits; all-lowercase or all-uppercase is accepted as written, mixed case
 *   must carry a valid EIP-55 checksum (a mistyped checksummed address is refused).
 * - solana: base58 of exactly 32 bytes.
 * - bitcoin: mainnet bech32 (segwit v0, `bc1q…`) or bech32m (v1+, `bc1p…`), or base58check
 *   P2PKH (`1…`) / P2SH (`3…`).
 * Returns the reason an address is invalid, or null when it is valid.
 */
export function addressProblem(family: ChainFamily, address: string): string | null {
  switch (family) {
    case "evm":
      return evmProblem(address);
    case "solana":
      return solanaProblem(address);
    case "bitcoin":
      return bitcoinProblem(address);
  }
}

const EVM = /^0x[0-9a-fA-F]{40}$/;

function evmProblem(address: string): string | null {
  if (!EVM.test(address)) return "must be 0x followed by 40 hexadecimal digits";
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return null;
  return toChecksumAddress(address) === address ? null : "has an invalid EIP-55 checksum";
}

/** The EIP-55 mixed-case form of an EVM address. */
export function toChecksumAddress(address: string): string {
  const body = address.slice(2).toLowerCase();
  const hash = Buffer.from(keccak_256(body)).toString("hex");
  let out = "0x";
  for (let i = 0; i < body.length; i++) out += parseInt(hash[i]!, 16) >= 8 ? body[i]!.toUpperCase() : body[i];
  return out;
}

function solanaProblem(address: string): string | null {
  if (address.length < 32 || address.length > 44) return "must be 32 to 44 base58 characters";
  try {
    return base58.decode(address).length === 32 ? null : "must encode 32 bytes";
  } catch {
    return "is not base58";
  }
}

function bitcoinProblem(address: string): string | null {
  const lower = address.toLowerCase();
  if (lower.startsWith("bc1")) {
    if (address !== lower && address !== address.toUpperCase()) return "mixes upper and lower case";
    return segwitProblem(lower);
  }
  if (address.startsWith("1") || address.startsWith("3")) return base58checkProblem(address);
  return "must be a mainnet bech32 (bc1…) or base58 (1… or 3…) address";
}

function segwitProblem(address: string): string | null {
  let decoded: { prefix: string; words: number[] };
  let variant: "bech32" | "bech32m";
  try {
    decoded = bech32.decode(address as `${string}1${string}`, 90);
    variant = "bech32";
  } catch {
    try {
      decoded = bech32m.decode(address as `${string}1${string}`, 90);
      variant = "bech32m";
    } catch {
      return "has an invalid bech32 checksum";
    }
  }
  if (decoded.prefix !== "bc") return "is not a mainnet address";
  const [version, ...data] = decoded.words;
  if (version === undefined || version > 16) return "has an invalid witness version";
  let program: Uint8Array;
  try {
    program = bech32.fromWords(data);
  } catch {
    return "has an invalid witness program";
  }
  if (version === 0) {
    if (variant !== "bech32") return "witness v0 must use bech32";
    if (program.length !== 20 && program.length !== 32) return "witness v0 program must be 20 or 32 bytes";
  } else {
    if (variant !== "bech32m") return "witness v1+ must use bech32m";
    if (program.length < 2 || program.length > 40) return "witness program must be 2 to 40 bytes";
  }
  return null;
}

function base58checkProblem(address: string): string | null {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    return "is not base58";
  }
  if (bytes.length !== 25) return "must encode 25 bytes";
  const payload = bytes.slice(0, 21);
  const checksum = sha256(sha256(payload)).slice(0, 4);
  if (!checksum.every((b, i) => b === bytes[21 + i])) return "has an invalid base58check checksum";
  if (payload[0] !== 0x00 && payload[0] !== 0x05) return "is not a mainnet P2PKH or P2SH address";
  return null;
}

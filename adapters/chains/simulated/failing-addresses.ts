import { base58, bech32, bech32m } from "@scure/base";
import type { ChainFamily } from "../../../src/ports/public";

/**
 * docs/decisions.md §10: in test mode a payout leg to one of these addresses fails on chain (it is
 * mined, then reverts), so an integrator reaches `failed` and `partially_settled` payouts with
 * the simulated chains alone:
 * - EVM: an address ending in `dead` (any case), e.g. `0x000000000000000000000000000000000000dEaD`;
 * - Solana: an address ending in `1111111111`;
 * - Bitcoin: no valid address can end in `1111111111` (bech32 has no `1` after its separator,
 *   and both encodings end in a checksum), so the rule reads the address's program instead:
 *   one whose 20- or 32-byte hash (witness program or base58check payload) ends in `dead`,
 *   e.g. `bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqph4dradfyq` (see docs/testing-your-integration.md).
 */
export function failsOnChain(family: ChainFamily, address: string): boolean {
  switch (family) {
    case "evm":
      return address.toLowerCase().endsWith("dead");
    case "solana":
      return address.endsWith("1111111111");
    case "bitcoin":
      return address.endsWith("1111111111") || bitcoinProgramHex(address)?.endsWith("dead") === true;
  }
}

function bitcoinProgramHex(address: string): string | null {
  try {
    if (address.toLowerCase().startsWith("bc1")) {
      const lower = address.toLowerCase() as `${string}1${string}`;
      let words: number[];
      try {
        words = bech32.decode(lower, 90).words;
      } catch {
        words = bech32m.decode(lower, 90).words;
      }
      return Buffer.from(bech32.fromWords(words.slice(1))).toString("hex");
    }
    const payload = base58.decode(address);
    return Buffer.from(payload.subarray(1, payload.length - 4)).toString("hex");
  } catch {
    return null;
  }
}

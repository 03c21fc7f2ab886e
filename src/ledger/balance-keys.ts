import type { BalanceKey } from "../ports/storage";

/** A balance row's key as one text, for the maps of a transaction's locked rows. */
export function keyOf(key: BalanceKey): string {
  return keyText(key.accountId, key.asset, key.chain, key.book);
}

/** `keyOf` from the key's parts (a posting's lines carry them apart). */
export function keyText(accountId: string, asset: string, chain: string, book: string): string {
  return `${accountId}\u0000${asset}\u0000${chain}\u0000${book}`;
}

/** The one order in which balance rows are locked, everywhere. */
export function compareKeys(a: BalanceKey, b: BalanceKey): number {
  return cmp(a.accountId, b.accountId) || cmp(a.asset, b.asset) || cmp(a.chain, b.chain) || cmp(a.book, b.book);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

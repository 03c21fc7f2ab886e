import type { Book } from "../ports/storage";

/** One line of a posting: an amount (signed base units) on one book of one account. */
export interface PostingLine {
  /** Another account than the posting's (the house account, which earns platform fees). */
  accountId?: string;
  asset: string;
  chain: string;
  book: Book;
  amount: bigint;
}

/**
 * The engine's counter-accounts. A posting that moves value across the system's edge balances
 * against one of them, so every posting nets to zero per asset (docs/decisions.md §4).
 */
export const COUNTER = {
  /** Value entering from or leaving to the outside world (test funding, withdrawals). */
  external: "counter:external",
  /** Value sent on-chain to recipients (payouts). */
  outbound: "counter:outbound",
  /** Value received on-chain from payers (payment intents). */
  inbound: "counter:inbound",
  /**
   * Value received on-chain that no account was credited with (a payment after its intent
   * expired, of another asset, on a chain the intent did not name): held by the operator, on the
   * intent's account, so the books still say what the chain holds (docs/reconciliation.md).
   */
  unallocated: "counter:unallocated",
  /** Network fees paid to chains. */
  networkFees: "counter:network_fees",
  /** Value exchanged with venues off the chains (swaps and fills at the simulated venues, a market's books). */
  venues: "counter:venues",
  /**
   * Value exchanged with venues on a chain (Uniswap pools): the input left the hot wallet and the
   * output arrived in it, so reconciliation finds these on chain, unlike `counter:venues`'.
   */
  venuesOnChain: "counter:venues_on_chain",
} as const satisfies Record<string, Book>;

/** Customer books are owned by the account and never go below zero. */
export function isCustomerBook(book: Book): boolean {
  return book === "available" || book === "reserved" || book === "pending";
}

/** Lines of `lines` summed per asset; every value must be zero for a valid posting. */
export function netPerAsset(lines: readonly PostingLine[]): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const line of lines) sums.set(line.asset, (sums.get(line.asset) ?? 0n) + line.amount);
  return sums;
}

export function isBalanced(lines: readonly PostingLine[]): boolean {
  // most postings move one asset: summed without a map
  let sum = 0n;
  for (const line of lines) {
    if (line.asset !== lines[0]!.asset) {
      for (const net of netPerAsset(lines).values()) if (net !== 0n) return false;
      return true;
    }
    sum += line.amount;
  }
  return sum === 0n;
}

/** Two lines that move `amount` from one book to another on one asset and chain. */
export function transfer(asset: string, chain: string, from: Book, to: Book, amount: bigint): PostingLine[] {
  if (amount <= 0n) throw new RangeError("a transfer moves a positive amount");
  return [
    { asset, chain, book: from, amount: -amount },
    { asset, chain, book: to, amount },
  ];
}

/** The lines that undo `lines` exactly: history is never edited, it is compensated. */
export function reversal(lines: readonly PostingLine[]): PostingLine[] {
  return lines.map((line) => ({ ...line, amount: -line.amount }));
}

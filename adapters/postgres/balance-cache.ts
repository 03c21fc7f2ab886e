import { compareKeys, type BalanceRecord } from "../../src/ports/public";

/** An (account, asset): the balance rows `lockBalances` locks together. */
export interface BalancePair {
  accountId: string;
  asset: string;
}

/** A balance row with its version: the row's `xmin` (the transaction that wrote it) as text. */
export interface VersionedBalance extends BalanceRecord {
  version: string;
}

/** An (account, asset) pair's key in `BalanceCache` and a transaction's maps. */
export function pairText(k: BalancePair): string {
  return `${k.accountId}\u0000${k.asset}`;
}

/**
 * Every balance row of the (account, asset) pairs this process's transactions last committed,
 * as they left them, with their versions: what an optimistic transaction
 * (`CommitOptions.optimistic`) takes for its reading of a pair instead of a statement. Only a
 * guess: the transaction's last statement checks every row is still that version (a new row of
 * the pair rewrites the others, so it counts too), else `StaleBalancesError` and the pair is
 * forgotten: another process's commit costs a rerun, never a wrong answer. A pair a
 * transaction read is forgotten when that transaction fails, replaced when it commits; at most
 * `max` pairs are kept, the least recently committed dropped first.
 */
export class BalanceCache {
  private readonly pairs = new Map<string, readonly VersionedBalance[]>();

  constructor(private readonly max = 10_000) {}

  /** Every row of these pairs in key order (copies), or null unless each pair is known. */
  rowsOf(pairs: readonly string[]): VersionedBalance[] | null {
    const out: VersionedBalance[] = [];
    for (const pair of pairs) {
      const rows = this.pairs.get(pair);
      if (!rows) return null;
      for (const row of rows) out.push({ ...row });
    }
    return out.sort(compareKeys);
  }

  /** A committed transaction's rows of the pairs it read, as it left them. */
  committed(seen: ReadonlyMap<string, readonly VersionedBalance[]>): void {
    for (const [pair, rows] of seen) {
      this.pairs.delete(pair); // re-inserted last: the most recently committed
      this.pairs.set(
        pair,
        rows.map((r) => ({ ...r })),
      );
    }
    for (const pair of this.pairs.keys()) {
      if (this.pairs.size <= this.max) break;
      this.pairs.delete(pair);
    }
  }

  forget(pairs: Iterable<string>): void {
    for (const pair of pairs) this.pairs.delete(pair);
  }
}

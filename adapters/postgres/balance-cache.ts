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
 * What a transaction still committing left: its outcome (its id once committed, null when it
 * failed), and the keys of the rows it changed, whose version is that id.
 */
export interface Committing {
  outcome: Promise<string | null>;
  moved: ReadonlySet<string>;
}

/** A pair's rows as a transaction left them, and, while that transaction commits, its `Committing`. */
interface Entry {
  rows: readonly VersionedBalance[];
  committing: Committing | null;
  /** The transaction that left them. */
  owner: object;
}

/**
 * Every balance row of the (account, asset) pairs this process's transactions last wrote, as
 * they left them, with their versions: what an optimistic transaction
 * (`CommitOptions.optimistic`) takes for its reading of a pair instead of a statement. A
 * transaction publishes its pairs as it sends its last statement (`publish`), before it knows
 * whether it commits, so the next one of this process plans on them while it commits; that one
 * waits for the outcome before it sends its own writes (`Committing`). Only a guess either way:
 * the transaction's last statement checks every row is still the version it took (a new row of
 * the pair rewrites the others, so it counts too), else `StaleBalancesError` and the pair is
 * forgotten: another process's commit costs a rerun, never a wrong answer. At most `max` pairs
 * are kept, the least recently written dropped first.
 */
export class BalanceCache {
  private readonly pairs = new Map<string, Entry>();

  constructor(private readonly max = 10_000) {}

  /**
   * Every row of these pairs in key order (copies), with what the rows of a transaction still
   * committing wait for; null unless each pair is known.
   */
  rowsOf(pairs: readonly string[]): { rows: VersionedBalance[]; waits: Committing[] } | null {
    const rows: VersionedBalance[] = [];
    const waits = new Set<Committing>();
    for (const pair of pairs) {
      const entry = this.pairs.get(pair);
      if (!entry) return null;
      for (const row of entry.rows) rows.push({ ...row });
      if (entry.committing) waits.add(entry.committing);
    }
    return { rows: rows.sort(compareKeys), waits: [...waits] };
  }

  /** A transaction's rows of the pairs it read, as it leaves them, while it commits (`committing`). */
  publish(owner: object, seen: ReadonlyMap<string, readonly VersionedBalance[]>, committing: Committing): void {
    this.set(owner, seen, committing);
  }

  /**
   * A committed transaction's rows of the pairs it read, as it left them; a pair that a later
   * transaction has published meanwhile keeps that newer guess.
   */
  committed(owner: object, seen: ReadonlyMap<string, readonly VersionedBalance[]>): void {
    const mine = new Map(
      [...seen].filter(([pair]) => {
        const entry = this.pairs.get(pair);
        return !entry?.committing || entry.owner === owner;
      }),
    );
    this.set(owner, mine, null);
  }

  forget(pairs: Iterable<string>): void {
    for (const pair of pairs) this.pairs.delete(pair);
  }

  private set(owner: object, seen: ReadonlyMap<string, readonly VersionedBalance[]>, committing: Committing | null): void {
    for (const [pair, rows] of seen) {
      this.pairs.delete(pair); // re-inserted last: the most recently written
      this.pairs.set(pair, { rows: rows.map((r) => ({ ...r })), committing, owner });
    }
    for (const pair of this.pairs.keys()) {
      if (this.pairs.size <= this.max) break;
      this.pairs.delete(pair);
    }
  }
}

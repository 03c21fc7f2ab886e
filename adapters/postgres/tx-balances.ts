import { keyOf, type BalanceKey, type BalanceRecord } from "../../src/ports/public";
import { pairText, type BalanceCache, type BalancePair, type Committing, type VersionedBalance } from "./balance-cache";
import type { FlushPart } from "./flush-statement";
import { keptSql } from "./sql-texts";
import { BALANCE_LOCK_ORDER, fewRows, fewRowsKey } from "./tables";

/**
 * A flush found a balance row that the transaction read without locking it (`expect`) changed
 * since: it wrote nothing, and the storage runs the transaction again (`PostgresStorage`).
 */
export class StaleBalancesError extends Error {
  constructor() {
    super("a balance row read without a lock changed before the transaction wrote");
    this.name = "StaleBalancesError";
  }
}

/** A flush's writes that do not meet what the transaction locked: a bug, never a retry. */
export function writesError(what: string): Error {
  return new Error(`the transaction's writes include ${what}`);
}

/** The version of a row a transaction still committing changed, until its outcome tells (`BalanceCache`). */
const COMMITTING = "committing";

/** How long a transaction waits for one it took rows from to commit, before it runs again without them (`awaitCommitting`). */
const COMMITTING_WAIT_MS = 500;

/**
 * One transaction's balance rows (`PgTx`): every row of each (account, asset) it read, by pair,
 * as its buffered entries leave them (for the process's `BalanceCache` once it ends), and in an
 * optimistic transaction (`CommitOptions.optimistic`) the versions of the rows it read without
 * locks (from the cache, or a plain read), which the next flush that writes locks and checks
 * (`parts`), and the transactions still committing whose rows it took (`awaitCommitting`).
 */
export class TxBalances {
  /** Versions of rows read unlocked, by key, for the next flush that writes to check. */
  private expected = new Map<string, string>();
  /** Every row of each pair read, by pair then key, as the buffered entries leave them. */
  private readonly seen = new Map<string, Map<string, VersionedBalance>>();
  /** Keys of rows a flush changed: their version is the transaction's id (`xid`). */
  private readonly moved = new Set<string>();
  /** The transaction's id, once a flush changed a row. */
  private xid: string | null = null;
  /** Transactions still committing whose rows this one took from the cache. */
  private waits: Committing[] = [];
  /** Ends what the transaction published as it sent its last statement (`publish`): its id, or null when it failed. */
  private published: ((xid: string | null) => void) | null = null;
  /** Whether a reading came from the process's cache (a stale one is retried without it). */
  usedCache = false;

  constructor(
    private readonly cache: BalanceCache | null,
    readonly optimistic: boolean,
  ) {}

  /** See `PgTxContext.expectBalances`. */
  expect(rows: readonly VersionedBalance[]): void {
    for (const row of rows) {
      const k = keyOf(row);
      if (!this.expected.has(k)) this.expected.set(k, row.version);
    }
  }

  /** See `PgTxContext.cachedBalances`. */
  cached(pairs: readonly BalancePair[], keys: readonly BalanceKey[]): VersionedBalance[] | null {
    if (!this.optimistic || !this.cache) return null;
    const found = this.cache.rowsOf(pairs.map(pairText));
    const have = new Set(found?.rows.map(keyOf));
    if (!found || !keys.every((k) => have.has(keyOf(k)))) return null;
    this.usedCache = true;
    for (const wait of found.waits) if (!this.waits.includes(wait)) this.waits.push(wait);
    this.expect(found.rows);
    this.saw(pairs, found.rows);
    return found.rows;
  }

  /** See `PgTxContext.sawBalances`. */
  saw(pairs: readonly BalancePair[], rows: readonly VersionedBalance[]): void {
    for (const pair of pairs) if (!this.seen.has(pairText(pair))) this.seen.set(pairText(pair), new Map());
    for (const row of rows) {
      const mine = this.seen.get(pairText(row));
      if (mine && !mine.has(keyOf(row))) mine.set(keyOf(row), { ...row });
    }
  }

  /** An entry buffered: the row it moves, as the transaction leaves it. */
  entered(key: string, pair: string, amount: bigint): void {
    const row = this.seen.get(pair)?.get(key);
    if (row) row.amount += amount;
  }

  /** Whether the next flush has rows read unlocked to check. */
  get checking(): boolean {
    return this.expected.size > 0;
  }

  /**
   * Waits for the transactions still committing whose rows this one took, and gives the rows they
   * changed their id as version; `StaleBalancesError` when one failed (what it left never was),
   * or has not ended within `COMMITTING_WAIT_MS` (it may be waiting for a lock this one holds:
   * the rerun gives it back).
   */
  async awaitCommitting(): Promise<void> {
    const waits = this.waits;
    this.waits = [];
    for (const { outcome, moved } of waits) {
      const xid = await Promise.race([outcome, new Promise<null>((resolve) => setTimeout(resolve, COMMITTING_WAIT_MS, null).unref())]);
      if (xid === null) throw new StaleBalancesError();
      for (const k of moved) {
        if (this.expected.get(k) === COMMITTING) this.expected.set(k, xid);
        for (const rows of this.seen.values()) {
          const row = rows.get(k);
          if (row?.version === COMMITTING) row.version = xid;
        }
      }
    }
  }

  /**
   * As an optimistic transaction sends its last statement (changing the rows of `moving` too):
   * publishes the rows it leaves (`BalanceCache.publish`, the ones it changes with a version to
   * come), for the next transaction of the process to plan on while this one commits. False when
   * there is nothing to publish to (not optimistic, no cache).
   */
  publish(moving: Iterable<string>): boolean {
    if (!this.optimistic || !this.cache) return false;
    const moved = new Set([...this.moved, ...moving]);
    const outcome = new Promise<string | null>((resolve) => (this.published = resolve));
    this.cache.publish(this, this.left(moved, COMMITTING), { outcome, moved });
    return true;
  }

  /**
   * Once the transaction ended: tells the transactions that took what it published whether it
   * committed, and keeps what it left in the process's cache, or forgets its pairs.
   */
  ended(committed: boolean): void {
    this.published?.(committed ? (this.xid ?? "") : null);
    this.published = null;
    if (!this.cache) return;
    if (committed) this.cache.committed(this, this.left(this.moved, this.xid ?? ""));
    else this.cache.forget(this.seen.keys());
  }

  /**
   * A flush's parts for balance rows (`s` the quoted schema; the flush writes something, else
   * there is none), to go first in its statement: the rows read unlocked, locked in the order a
   * locking read takes them (`BALANCE_LOCK_ORDER`) if each is still the version read, then the
   * `deltas` of its ledger entries, each row hit once. Either count off fails the flush: the
   * check's with `StaleBalancesError`, the deltas' as a bug. Checking every row read unlocked
   * before any is written keeps the order: a flush that wrote its moved rows first, then locked
   * the others, could hold one row a locking reader wants while waiting for one it holds. The
   * rows read unlocked are checked from here on (or the flush fails).
   */
  parts(s: string, deltas: readonly BalanceRecord[]): FlushPart[] {
    const parts: FlushPart[] = [];
    const where = "b.account_id = d.account_id AND b.asset = d.asset AND b.chain = d.chain AND b.book = d.book";
    const checked = [...this.expected];
    if (checked.length) {
      const rows = "json_to_recordset($1::json) AS d(account_id text, asset text, chain text, book text, version text)";
      parts.push({
        sql: keptSql(
          s,
          `checked ${fewRowsKey(checked.length)}`,
          () => `SELECT 1 FROM ${s}.balances b, ${fewRows(rows, "d", checked.length)}
       WHERE ${where} AND b.xmin::text = d.version ${BALANCE_LOCK_ORDER} FOR UPDATE OF b`,
        ),
        param: JSON.stringify(
          checked.map(([k, version]) => {
            const [account_id, asset, chain, book] = k.split("\u0000");
            return { account_id, asset, chain, book, version };
          }),
        ),
        select: true,
        expect: { rows: checked.length, error: () => new StaleBalancesError() },
      });
    }
    if (deltas.length) {
      const rows = "json_to_recordset($1::json) AS d(account_id text, asset text, chain text, book text, delta numeric)";
      parts.push({
        sql: keptSql(
          s,
          `deltas ${fewRowsKey(deltas.length)}`,
          () => `UPDATE ${s}.balances b SET amount = b.amount + d.delta
       FROM ${fewRows(rows, "d", deltas.length)}
       WHERE ${where}`,
        ),
        param: JSON.stringify(deltas.map((d) => ({ account_id: d.accountId, asset: d.asset, chain: d.chain, book: d.book, delta: d.amount.toString() }))),
        expect: { rows: deltas.length, error: () => writesError("ledger entries that touch a balance row that was not locked") },
      });
    }
    this.expected = new Map();
    return parts;
  }

  /** A flush sent: the rows of `moving` are the transaction's (`xid`) version now. */
  flushed(moving: readonly string[], xid: string): void {
    this.xid = xid;
    for (const k of moving) this.moved.add(k);
  }

  /** Every row of each pair read, as the writes leave them: the `moved` ones of `version`. */
  private left(moved: ReadonlySet<string>, version: string): Map<string, VersionedBalance[]> {
    return new Map([...this.seen].map(([pair, rows]) => [pair, [...rows].map(([k, row]) => (moved.has(k) ? { ...row, version } : row))]));
  }
}

import { compareKeys, keyOf, type BalanceRecord, type LedgerPageQuery, type LedgerStore } from "../../../src/ports/public";
import { bufferedUpdate } from "../buffered-update";
import type { PgTxContext, Row } from "../pg-tx";
import { pairText, type VersionedBalance } from "../balance-cache";
import { likePrefix } from "../keyset";
import { keptSql } from "../sql-texts";
import { BALANCES, BALANCE_LOCK_ORDER, LEDGER_ENTRIES, RESERVATIONS, fewRows, fewRowsKey } from "../tables";

/** The customer books, written as in the partial index `ledger_entries_own_by_created`. */
const CUSTOMER_BOOKS = "('available', 'reserved', 'pending')";

/** A balance row without its version, as the port's stores return it. */
const unversioned = ({ version: _, ...row }: VersionedBalance): BalanceRecord => row;

/** A locked reservation written back (`updateReservation`). */
const reservationUpdate = bufferedUpdate(RESERVATIONS, ["accountId", "id"], ["remaining", "status", "resolvedAt"]);

/** The columns `pageEntriesEach` reads: the table's, in its order (`LEDGER_ENTRIES.fromValues`). */
const PAGE_COLUMNS = LEDGER_ENTRIES.columns.map((c) => c.name).join(", ");

/** The statement of one keyset page (`LedgerStore.pageEntries`) selecting `columns`. */
function pageSql(s: string, q: LedgerPageQuery, columns: string): { text: string; params: unknown[] } {
  const params: unknown[] = [q.accountId];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  // The predicate on book is the partial index's own, so the planner can use it.
  const where = ["account_id = $1", `book IN ${CUSTOMER_BOOKS}`];
  if (q.createdGte !== undefined) where.push(`created >= ${p(q.createdGte)}`);
  if (q.createdLt !== undefined) where.push(`created < ${p(q.createdLt)}`);
  if (q.resourcePrefix !== undefined) where.push(`resource LIKE ${p(likePrefix(q.resourcePrefix))} ESCAPE '\\'`);
  const [cmp, dir] = q.order === "asc" ? [">", "ASC"] : ["<", "DESC"];
  if (q.after !== undefined) where.push(`(created, id) ${cmp} (${p(q.after.created)}, ${p(q.after.id)})`);
  const text = `SELECT ${columns} FROM ${s}.ledger_entries WHERE ${where.join(" AND ")} ORDER BY created ${dir}, id ${dir} LIMIT ${p(q.limit)}`;
  return { text, params };
}

// the few pairs of a use case, as few to the planner (`boundedRows`): lookups by key, never a scan
const WANTED = "unnest($1::text[], $2::text[]) AS p(account_id, asset)";
// each row's version (`VersionedBalance`): what an optimistic transaction's last statement checks
const COLUMNS = "b.account_id, b.asset, b.chain, b.book, b.amount, b.xmin::text AS version";
const rowsOfPairs = (s: string, count: number) => `${s}.balances b JOIN ${fewRows(WANTED, "p", count)} USING (account_id, asset)`;

/** The balance rows of `count` pairs (`$1` accounts, `$2` assets) in their lock order, read unlocked; made once per schema and count. */
const rowsSql = (s: string, count: number) =>
  keptSql(s, `balance rows ${fewRowsKey(count)}`, () => `SELECT ${COLUMNS} FROM ${rowsOfPairs(s, count)} ${BALANCE_LOCK_ORDER}`);

/**
 * The same rows locked, as they are once the locks are ours. A row a transaction changed while
 * this one waited for its lock comes back as that transaction left it, but a row it added is not
 * in this statement's snapshot: such a transaction rewrote the pair's other rows (`lockBalances`),
 * so a row unlike the snapshot's (`changed`) sends the read again, rows locked.
 */
const lockedRowsSql = (s: string, count: number) =>
  keptSql(
    s,
    `balance rows locked ${fewRowsKey(count)}`,
    () => `WITH snap AS MATERIALIZED (SELECT b.chain, b.book, b.account_id, b.asset, b.xmin AS version FROM ${rowsOfPairs(s, count)})
        SELECT ${COLUMNS},
          NOT EXISTS (SELECT 1 FROM snap WHERE snap.account_id = b.account_id AND snap.asset = b.asset
            AND snap.chain = b.chain AND snap.book = b.book AND snap.version = b.xmin) AS changed
        FROM ${rowsOfPairs(s, count)} ${BALANCE_LOCK_ORDER}
        FOR UPDATE OF b`,
  );

export function ledgerStore(tx: PgTxContext): LedgerStore {
  const s = tx.s;
  return {
    async lockBalances(keys) {
      const sorted = [...keys].sort(compareKeys);
      const pairs = [...new Map(sorted.map((k) => [pairText(k), k])).values()];
      const pairParams = [pairs.map((k) => k.accountId), pairs.map((k) => k.asset)];
      const lock = async () => {
        const select = lockedRowsSql(s, pairs.length);
        const locked = await tx.run(select, pairParams);
        return locked.rows.some((r) => r.changed) ? tx.run(select, pairParams) : locked;
      };
      await tx.takeTurns(pairs.map(pairText));
      const versioned = (rows: Row[]): VersionedBalance[] => rows.map((r) => ({ ...BALANCES.fromRow(r), version: String(r.version) }));
      const missingOf = (rows: Row[]) => {
        const have = new Set(rows.map((r) => keyOf(BALANCES.fromRow(r))));
        return sorted.filter((k) => !have.has(keyOf(k)));
      };
      if (tx.optimistic) {
        // as this process last committed them, or read unlocked; checked by the transaction's
        // last statement (`CommitOptions.optimistic`); rows to create are made under locks, as below
        const cached = tx.cachedBalances(pairs, sorted);
        if (cached) return cached.map(unversioned);
        const { rows } = await tx.read(rowsSql(s, pairs.length), pairParams);
        if (missingOf(rows).length === 0) {
          const found = versioned(rows);
          tx.expectBalances(found);
          tx.sawBalances(pairs, found);
          return found.map(unversioned);
        }
      }
      let { rows } = await lock();
      const missing = missingOf(rows);
      if (missing.length) {
        await tx.run(
          `INSERT INTO ${s}.balances (account_id, asset, chain, book, amount)
           SELECT account_id, asset, chain, book, 0
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS k(account_id, asset, chain, book)
           ORDER BY account_id, asset, chain, book
           ON CONFLICT DO NOTHING`,
          [missing.map((k) => k.accountId), missing.map((k) => k.asset), missing.map((k) => k.chain), missing.map((k) => k.book)],
        );
        // every row of the pairs rewritten: an optimistic transaction that read them before the new
        // one existed finds none of them its version, so it never decides without the new row
        await tx.run(
          `UPDATE ${s}.balances b SET amount = b.amount FROM ${fewRows(WANTED, "p", pairs.length)}
           WHERE b.account_id = p.account_id AND b.asset = p.asset`,
          pairParams,
        );
        ({ rows } = await lock());
      }
      const locked = versioned(rows);
      tx.sawBalances(pairs, locked);
      return locked.map(unversioned);
    },
    async appendEntries(entries) {
      tx.bufferEntries(entries);
    },
    async listBalances(accountId) {
      const { rows } = await tx.read(
        `SELECT account_id, asset, chain, book, amount FROM ${s}.balances WHERE account_id = $1
         ORDER BY account_id, asset, chain, book`,
        [accountId],
      );
      return rows.map(BALANCES.fromRow);
    },
    async listBalanceTotals({ livemode, chain }) {
      const { rows } = await tx.read(
        `SELECT b.asset, b.book, sum(b.amount) AS amount FROM ${s}.balances b JOIN ${s}.accounts a ON a.id = b.account_id
         WHERE a.livemode = $1 AND b.chain = $2 GROUP BY b.asset, b.book ORDER BY b.asset, b.book`,
        [livemode, chain],
      );
      return rows.map((r) => ({ asset: String(r.asset), book: String(r.book) as BalanceRecord["book"], amount: BigInt(String(r.amount)) }));
    },
    async listActiveReservations({ livemode, chain }) {
      // the partial index of active reservations (migration 24): resolved ones are never read
      const { rows } = await tx.read(
        `SELECT r.* FROM ${s}.reservations r JOIN ${s}.accounts a ON a.id = r.account_id
         WHERE r.status = 'active' AND r.chain = $2 AND a.livemode = $1 ORDER BY r.account_id, r.id`,
        [livemode, chain],
      );
      return rows.map(RESERVATIONS.fromRow);
    },
    async listEntries(accountId, filter) {
      const params: unknown[] = [accountId];
      let where = "account_id = $1";
      if (filter.resource !== undefined) {
        params.push(filter.resource);
        where += ` AND resource = $${params.length}`;
      }
      if (filter.ids !== undefined) {
        params.push(filter.ids);
        where += ` AND id = ANY($${params.length}::text[])`;
      }
      const { rows } = await tx.read(`SELECT * FROM ${s}.ledger_entries WHERE ${where} ORDER BY created, id`, params);
      return rows.map(LEDGER_ENTRIES.fromRow);
    },
    async pageEntries(q) {
      const { text, params } = pageSql(s, q, "*");
      const { rows } = await tx.read(text, params);
      return rows.map(LEDGER_ENTRIES.fromRow);
    },
    async pageEntriesEach(q, entry) {
      const { text, params } = pageSql(s, q, PAGE_COLUMNS);
      // one record per row as it arrives, none kept
      return tx.readEach(text, params, (values) => entry(LEDGER_ENTRIES.fromValues(values)));
    },
    async insertReservations(reservations) {
      tx.buffer(RESERVATIONS, reservations);
    },
    async lockReservation(accountId, id) {
      const { rows } = await tx.run(`SELECT * FROM ${s}.reservations WHERE account_id = $1 AND id = $2 FOR UPDATE`, [accountId, id]);
      return rows[0] ? RESERVATIONS.fromRow(rows[0]) : null;
    },
    async lockReservations(accountId, ids) {
      if (ids.length === 0) return [];
      const { rows } = await tx.run(`SELECT * FROM ${s}.reservations WHERE account_id = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE`, [
        accountId,
        [...new Set(ids)],
      ]);
      return rows.map(RESERVATIONS.fromRow);
    },
    async updateReservation(r) {
      await tx.bufferUpdates(reservationUpdate(s), [r]);
    },
  };
}

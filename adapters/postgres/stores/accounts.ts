import type { AccountStore } from "../../../src/ports/public";
import type { PgTxContext } from "../pg-tx";
import { keysetSql } from "../keyset";
import { ACCOUNTS, API_KEYS, RESOURCES } from "../tables";

/** The account's columns, renamed beside the resource's (`getAccountWith`). */
const ACCOUNT_COLUMNS = ACCOUNTS.columns.map((c) => `a.${c.name} AS "a.${c.name}"`).join(", ");

export function accountStore(tx: PgTxContext): AccountStore {
  const s = tx.s;
  return {
    async insertAccount(account) {
      await tx.run(ACCOUNTS.insertSql(s), [ACCOUNTS.jsonRows([account])]);
    },
    async getAccount(id) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.accounts WHERE id = $1`, [id]);
      return rows[0] ? ACCOUNTS.fromRow(rows[0]) : null;
    },
    async getAccountWith(accountId, resourceId) {
      const { rows } = await tx.read(
        `SELECT ${ACCOUNT_COLUMNS}, r.* FROM (SELECT 1) AS one
         LEFT JOIN ${s}.accounts a ON a.id = $1
         LEFT JOIN ${s}.resources r ON r.account_id = $1 AND r.id = $2`,
        [accountId, resourceId],
      );
      const row = rows[0]!;
      const account = row["a.id"] === null ? null : ACCOUNTS.fromRow(Object.fromEntries(ACCOUNTS.columns.map((c) => [c.name, row[`a.${c.name}`]])));
      return { account, resource: row.id === null ? null : RESOURCES.fromRow(row) };
    },
    async updateAccountSettings(id, settings) {
      const r = await tx.run(`UPDATE ${s}.accounts SET settings = $2::jsonb WHERE id = $1`, [id, JSON.stringify(settings)]);
      if (r.rowCount !== 1) throw new Error(`no account ${id}`);
    },
    async insertApiKey(key) {
      return (await tx.run(API_KEYS.insertSql(s), [API_KEYS.jsonRows([key])])).rowCount === 1;
    },
    async findApiKey(hash) {
      const { rows } = await tx.read(`SELECT * FROM ${s}.api_keys WHERE hash = $1`, [hash]);
      return rows[0] ? API_KEYS.fromRow(rows[0]) : null;
    },
    async getApiKey(accountId, id, options) {
      const { rows } = await tx.select(`SELECT * FROM ${s}.api_keys WHERE account_id = $1 AND id = $2`, [accountId, id], options);
      return rows[0] ? API_KEYS.fromRow(rows[0]) : null;
    },
    async listApiKeys(query) {
      const { text, params } = keysetSql(
        `${s}.api_keys`,
        { accountId: query.accountId, limit: query.limit, ...(query.after ? { after: query.after } : {}) },
        {},
      );
      return (await tx.read(text, params)).rows.map(API_KEYS.fromRow);
    },
    async updateApiKey(accountId, id, change) {
      const sets: string[] = [];
      const params: unknown[] = [accountId, id];
      if (change.expiresAt !== undefined) sets.push(`expires_at = $${params.push(change.expiresAt)}`);
      if (change.revokedAt !== undefined) sets.push(`revoked_at = $${params.push(change.revokedAt)}`);
      if (change.lastUsedAt !== undefined) sets.push(`last_used_at = $${params.push(change.lastUsedAt)}`);
      if (!sets.length) return (await this.getApiKey(accountId, id)) !== null;
      const r = await tx.run(`UPDATE ${s}.api_keys SET ${sets.join(", ")} WHERE account_id = $1 AND id = $2`, params);
      return r.rowCount === 1;
    },
  };
}

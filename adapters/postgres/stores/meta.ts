import type { MetaStore } from "../../../src/ports/public";
import type { PgTxContext } from "../pg-tx";

export function metaStore(tx: PgTxContext): MetaStore {
  const s = tx.s;
  return {
    async get(key, options) {
      const { rows } = await tx.select(`SELECT value FROM ${s}.meta WHERE key = $1`, [key], options);
      return rows[0] ? String(rows[0].value) : null;
    },
    async setIfAbsent(key, value) {
      await tx.run(`INSERT INTO ${s}.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, value]);
      const { rows } = await tx.read(`SELECT value FROM ${s}.meta WHERE key = $1`, [key]);
      return String(rows[0]!.value);
    },
    async set(key, value) {
      await tx.run(`INSERT INTO ${s}.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [key, value]);
    },
    async raise(key, value) {
      const { rows } = await tx.run(
        `INSERT INTO ${s}.meta (key, value) VALUES ($1, $2) ON CONFLICT (key)
         DO UPDATE SET value = GREATEST(${s}.meta.value::bigint, EXCLUDED.value::bigint)::text
         RETURNING value`,
        [key, String(Math.trunc(value))],
      );
      return Number(rows[0]!.value);
    },
  };
}

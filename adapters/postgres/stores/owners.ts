import type { OwnerRecord, OwnerStore } from "../../../src/ports/public";
import type { PgTxContext, Row } from "../pg-tx";

const record = (r: Row): OwnerRecord => ({
  owner: String(r.owner),
  aliveUntil: Number(r.alive_until),
  deadAt: r.dead_at === null || r.dead_at === undefined ? null : Number(r.dead_at),
});

/**
 * The SQL that holds `$n`, an owner, to be alive at `$m` while the statement runs: its record
 * (if any) is read `FOR SHARE`, so a `reap` declaring it dead waits for the statement's
 * transaction, and then ends the leases it took (see `ClaimRequest.owner`). A WHERE condition.
 */
export function ownerAliveSql(s: string, owner: string, now: string): string {
  return `NOT EXISTS (SELECT 1 FROM (SELECT dead_at, alive_until FROM ${s}.owners WHERE owner = ${owner} FOR SHARE) o
    WHERE o.dead_at IS NOT NULL OR o.alive_until <= ${now})`;
}

export function ownerStore(tx: PgTxContext): OwnerStore {
  const s = tx.s;
  /** Ends the due-work leases of owners declared dead (a statement of its own: it sees leases committed meanwhile). */
  const freeLeases = async (owners: string[]) => {
    if (!owners.length) return;
    await tx.run(`UPDATE ${s}.due_work SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ANY($1::text[])`, [owners]);
  };
  return {
    async heartbeat(owner, now, until) {
      const r = await tx.run(
        `INSERT INTO ${s}.owners (owner, alive_until) VALUES ($1, $3)
         ON CONFLICT (owner) DO UPDATE SET alive_until = EXCLUDED.alive_until
         WHERE ${s}.owners.dead_at IS NULL AND ${s}.owners.alive_until > $2
         RETURNING owner`,
        [owner, now, until],
      );
      return r.rowCount === 1;
    },
    async reap(now) {
      const { rows } = await tx.run(`UPDATE ${s}.owners SET dead_at = $1 WHERE dead_at IS NULL AND alive_until <= $1 RETURNING owner`, [now]);
      const owners = rows.map((r) => String(r.owner));
      await freeLeases(owners);
      return owners;
    },
    async retire(owner, now) {
      const r = await tx.run(`UPDATE ${s}.owners SET dead_at = $2 WHERE owner = $1 AND dead_at IS NULL`, [owner, now]);
      if (r.rowCount === 1) await freeLeases([owner]);
    },
    async getMany(owners) {
      const found = new Map<string, OwnerRecord>();
      if (!owners.length) return found;
      const { rows } = await tx.read(`SELECT * FROM ${s}.owners WHERE owner = ANY($1::text[])`, [owners]);
      for (const r of rows) found.set(String(r.owner), record(r));
      return found;
    },
    prune: (before, limit) => tx.prune("owners", "owner", "dead_at < $1", before, limit),
  };
}

import { type RateLimitStore, slidingWindowTake } from "../../../src/ports/public";
import type { PgTxContext } from "../pg-tx";

export function rateLimitStore(tx: PgTxContext): RateLimitStore {
  const s = tx.s;
  return {
    async take(key, now, windowMs, limit) {
      // one key's takes queue on its advisory lock until commit: the count read below stays true
      await tx.run("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`payrail.rate_limit.${s}.${key}`]);
      const { rows } = await tx.run(`SELECT at, count FROM ${s}.rate_limits WHERE key = $1 AND at > $2`, [key, now - windowMs]);
      const taken = slidingWindowTake(
        rows.map((r) => ({ at: Number(r.at), count: Number(r.count) })),
        now,
        windowMs,
        limit,
      );
      if (taken.accepted) {
        await tx.run(
          `INSERT INTO ${s}.rate_limits (key, at, count) VALUES ($1, $2, 1)
           ON CONFLICT (key, at) DO UPDATE SET count = ${s}.rate_limits.count + 1`,
          [key, now],
        );
      }
      return taken;
    },
    pruneBefore: (before, limit) => tx.prune("rate_limits", "key, at", "at < $1", before, limit),
  };
}

import type { RateLimitStore } from "../../../src/ports/public";
import type { PgTxContext } from "../pg-tx";

export function rateLimitStore(tx: PgTxContext): RateLimitStore {
  const s = tx.s;
  return {
    async hit(key, windowStart) {
      const { rows } = await tx.run(
        `INSERT INTO ${s}.rate_limits (key, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (key, window_start) DO UPDATE SET count = ${s}.rate_limits.count + 1
         RETURNING count`,
        [key, windowStart],
      );
      return Number(rows[0]!.count);
    },
    pruneBefore: (before, limit) => tx.prune("rate_limits", "key, window_start", "window_start < $1", before, limit),
  };
}

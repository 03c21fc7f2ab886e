import { describe, expect, it } from "vitest";
import { delivery, event, type SuiteContext, T0 } from "./fixtures";

const DAY = 86_400_000;

/**
 * Retention of the time-ordered tables over days: whatever a store does with whole days (the
 * partitioned PostgreSQL layout drops them, docs/scaling.md), exactly the rows created before
 * the moment go, in every account, and a batch that reaches its limit says so.
 */
export function retentionSuite(s: SuiteContext): void {
  describe("retention over days", () => {
    // 3 rows a day for 10 days, in two accounts, the last of each day a millisecond before midnight
    const times = Array.from({ length: 10 }, (_, d) => [T0 + d * DAY, T0 + d * DAY + 3_600_000, T0 + (d + 1) * DAY - 1]).flat();
    const id = (prefix: string, i: number) => `${prefix}_01aaaaaaaaaaaaaaaaaaaaa${String(i).padStart(3, "0")}`;
    const drain = async (prune: (limit: number) => Promise<number>, limit: number) => {
      let total = 0;
      for (let n = limit; n >= limit; total += n) n = await prune(limit);
      return total;
    };

    it("prunes exactly the events and delivery attempts created before a moment, across days and accounts", async () => {
      const events = times.map((t, i) => event(i % 2 ? "acct_a" : "acct_b", id("evt", i), t));
      const attempts = times.map((t, i) => delivery(i % 2 ? "acct_b" : "acct_a", id("wha", i), t));
      await s.storage.transaction(async (tx) => {
        await tx.events.insert(events);
        await tx.deliveries.insert(attempts);
      });
      // mid-day 7 for events, the start of day 3 for attempts
      const eventsBefore = T0 + 7 * DAY + 3_600_000;
      const attemptsBefore = T0 + 3 * DAY;
      const pruneEvents = (limit: number) => s.storage.transaction((tx) => tx.events.pruneBefore(eventsBefore, limit));
      const pruneAttempts = (limit: number) => s.storage.transaction((tx) => tx.deliveries.pruneBefore(attemptsBefore, limit));
      expect(await drain(pruneEvents, 4)).toBe(times.filter((t) => t < eventsBefore).length);
      expect(await drain(pruneAttempts, 100)).toBe(9);
      expect(await pruneEvents(4)).toBe(0);
      const kept = async (a: string) => [...(await s.inspect.events(a)), ...(await s.inspect.deliveries(a))].map((r) => r.id).sort();
      expect([...(await kept("acct_a")), ...(await kept("acct_b"))].sort()).toEqual(
        [...events.filter((e) => e.created >= eventsBefore).map((e) => e.id), ...attempts.filter((a) => a.created >= attemptsBefore).map((a) => a.id)].sort(),
      );
      // rows written after a sweep, into days it has seen and days it has not, are kept and pruned the same way
      const later = [event("acct_a", id("evt", 900), T0 + 8 * DAY + 5), event("acct_b", id("evt", 901), T0 + 30 * DAY)];
      await s.storage.transaction((tx) => tx.events.insert(later));
      expect(await drain((limit) => s.storage.transaction((tx) => tx.events.pruneBefore(T0 + 9 * DAY, limit)), 100)).toBe(
        times.filter((t) => t >= eventsBefore && t < T0 + 9 * DAY).length + 1,
      );
      expect((await s.inspect.events("acct_b")).map((e) => e.id)).toContain(id("evt", 901));
    });
  });
}

import { describe, expect, it } from "vitest";
import type { DeliveryLogRecord } from "../../ports/storage";
import { type SuiteContext, T0, delivery } from "./fixtures";

export function deliveryLogSuite(s: SuiteContext): void {
  describe("webhook delivery log", () => {
    it("stores attempts, lists one endpoint's newest first with a status filter, and prunes by age", async () => {
      const rows: DeliveryLogRecord[] = [];
      for (let i = 0; i < 9; i++) {
        rows.push({
          ...delivery("acct_a", `dlv_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0 + Math.floor(i / 2) * 1000),
          endpointId: i % 3 === 2 ? "we_2" : "we_1",
          eventId: `evt_${Math.floor(i / 3)}`,
          status: i % 2 ? "succeeded" : "failed",
          responseStatus: i % 2 ? 200 : null,
          error: i % 2 ? null : "timeout",
          nextAttemptAt: i % 2 ? null : T0 + 5_000,
        });
      }
      const foreign = { ...delivery("acct_b", "dlv_01bbbbbbbbbbbbbbbbbbbbbbbb", T0), endpointId: "we_1" };
      await s.storage.transaction((tx) => tx.deliveries.insert([...rows, foreign]));
      const mine = rows.filter((r) => r.endpointId === "we_1");
      const expected = [...mine].sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));

      const seen: DeliveryLogRecord[] = [];
      let after: { created: number; id: string } | undefined;
      for (;;) {
        const page = await s.storage.transaction((tx) =>
          tx.deliveries.list({ accountId: "acct_a", endpointId: "we_1", limit: 2, ...(after ? { after } : {}) }),
        );
        seen.push(...page);
        if (page.length < 2) break;
        after = { created: page[1]!.created, id: page[1]!.id };
      }
      expect(seen).toEqual(expected);
      const failed = await s.storage.transaction((tx) => tx.deliveries.list({ accountId: "acct_a", endpointId: "we_1", status: "failed", limit: 100 }));
      expect(failed.map((r) => r.id)).toEqual(expected.filter((r) => r.status === "failed").map((r) => r.id));
      const ranged = await s.storage.transaction((tx) =>
        tx.deliveries.list({ accountId: "acct_a", endpointId: "we_1", createdGte: T0 + 1000, createdLt: T0 + 3000, limit: 100 }),
      );
      expect(ranged.map((r) => r.id)).toEqual(expected.filter((r) => r.created >= T0 + 1000 && r.created < T0 + 3000).map((r) => r.id));
      expect(await s.inspect.deliveries("acct_b")).toEqual([foreign]);
      // one event's attempts, paged, with the status filter beside it
      const byEvent = await s.storage.transaction((tx) => tx.deliveries.list({ accountId: "acct_a", endpointId: "we_1", eventId: "evt_2", limit: 100 }));
      expect(byEvent.map((r) => r.id)).toEqual(expected.filter((r) => r.eventId === "evt_2").map((r) => r.id));
      expect(byEvent.length).toBeGreaterThan(1);
      const firstOfEvent = await s.storage.transaction((tx) =>
        tx.deliveries.list({
          accountId: "acct_a",
          endpointId: "we_1",
          eventId: "evt_2",
          limit: 1,
          after: { created: byEvent[0]!.created, id: byEvent[0]!.id },
        }),
      );
      expect(firstOfEvent.map((r) => r.id)).toEqual([byEvent[1]!.id]);
      const failedOfEvent = await s.storage.transaction((tx) =>
        tx.deliveries.list({ accountId: "acct_a", endpointId: "we_1", eventId: "evt_2", status: "failed", limit: 100 }),
      );
      expect(failedOfEvent.map((r) => r.id)).toEqual(expected.filter((r) => r.eventId === "evt_2" && r.status === "failed").map((r) => r.id));
      expect(await s.storage.transaction((tx) => tx.deliveries.list({ accountId: "acct_a", endpointId: "we_2", eventId: "evt_none", limit: 100 }))).toEqual([]);

      expect(await s.storage.transaction((tx) => tx.deliveries.pruneBefore(T0 + 2000, 100))).toBe(5);
      expect((await s.inspect.deliveries("acct_a")).map((r) => r.id).sort()).toEqual(
        rows
          .filter((r) => r.created >= T0 + 2000)
          .map((r) => r.id)
          .sort(),
      );
    });
  });
}

import { describe, expect, it } from "vitest";
import { StaleResourceError, type ResourceRecord } from "../../ports/storage/resources";
import { type SuiteContext, T0, event, resource } from "./fixtures";

export function resourceSuite(s: SuiteContext): void {
  describe("resources and the keyset list", () => {
    it("gets, and updates only from the version it read", async () => {
      const r = resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaaa", T0);
      await s.storage.transaction(async (tx) => {
        await tx.resources.insert([r]);
        expect(await tx.resources.get("acct_a", r.id)).toEqual(r); // visible inside the transaction
      });
      const next = { ...r, status: "settled", data: { n: 2 }, version: 2, updated: T0 + 1 };
      expect(await s.storage.transaction((tx) => tx.resources.update(next))).toBe(true);
      expect(await s.storage.transaction((tx) => tx.resources.update({ ...next, data: { n: 3 } }))).toBe(false);
      expect(await s.storage.transaction((tx) => tx.resources.get("acct_a", r.id, { lock: true }))).toEqual(next);
      expect(await s.storage.transaction((tx) => tx.resources.get("acct_b", r.id))).toBeNull();
      expect(await s.inspect.resources("acct_a")).toEqual([next]);
      expect(await s.storage.transaction((tx) => tx.resources.delete("acct_b", r.id))).toBe(false);
      expect(await s.storage.transaction((tx) => tx.resources.delete("acct_a", r.id))).toBe(true);
      expect(await s.inspect.resources("acct_a")).toEqual([]);
      expect(await s.storage.transaction((tx) => tx.resources.delete("acct_a", r.id))).toBe(false);
    });

    it("reads many by id at once, only of the account", async () => {
      const a = resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaa1", T0);
      const b = resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaaa2", T0 + 1);
      const c = resource("acct_b", "po_01aaaaaaaaaaaaaaaaaaaaaaa3", T0 + 2);
      await s.storage.transaction((tx) => tx.resources.insert([a, b, c]));
      const many = await s.storage.transaction((tx) => tx.resources.getMany("acct_a", [b.id, c.id, "po_missing", a.id]));
      expect(many.map((r) => r.id).sort()).toEqual([a.id, b.id]);
      expect(await s.storage.transaction((tx) => tx.resources.getMany("acct_a", []))).toEqual([]);
    });

    it("locks many at once and updates many, each from the version it read, or fails the whole transaction", async () => {
      const a = resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaab1", T0);
      const b = resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaab2", T0 + 1);
      const bump = (r: ResourceRecord, n: number): ResourceRecord => ({ ...r, status: `s${n}`, data: { n }, version: r.version + 1, updated: T0 + n });
      await s.storage.transaction(async (tx) => {
        await tx.resources.insert([a, b]);
        // an update right after the insert, with no read between, sees the inserted rows
        await tx.resources.updateMany([bump(a, 2)]);
        // a read after buffered updates sees them; a second update of a row builds on the first
        expect((await tx.resources.getMany("acct_a", [a.id], { lock: true }))[0]).toEqual(bump(a, 2));
        await tx.resources.updateMany([bump(bump(a, 2), 3), bump(b, 3)]);
      });
      const [a3, b3] = [bump(bump(a, 2), 3), bump(b, 3)];
      expect((await s.inspect.resources("acct_a")).sort((x, y) => x.id.localeCompare(y.id))).toEqual([a3, b3]);

      const locked = await s.storage.transaction((tx) => tx.resources.getMany("acct_a", [b.id, a.id, "po_missing"], { lock: true }));
      expect(locked.map((r) => r.id).sort()).toEqual([a.id, b.id]);
      // one stale record fails the transaction: nothing of it stays, the good update included
      await expect(
        s.storage.transaction(async (tx) => {
          await tx.resources.updateMany([bump(a3, 4), { ...b, data: { stale: true }, version: 2 }]);
          await tx.resources.get("acct_a", a.id);
        }),
      ).rejects.toBeInstanceOf(StaleResourceError);
      expect((await s.inspect.resources("acct_a")).sort((x, y) => x.id.localeCompare(y.id))).toEqual([a3, b3]);
      // without locks (an optimistic write), at the commit too
      await expect(
        s.storage.transaction(async (tx) => {
          await tx.events.insert([event("acct_a", "evt_01aaaaaaaaaaaaaaaaaaaaaab8", T0)]);
          await tx.resources.updateMany([{ ...b, data: { stale: true }, version: 2 }]);
        }),
      ).rejects.toBeInstanceOf(StaleResourceError);
      expect(await s.inspect.events("acct_a")).toEqual([]);
      await expect(
        s.storage.transaction((tx) => tx.resources.updateMany([{ ...resource("acct_a", "po_01aaaaaaaaaaaaaaaaaaaaaab9", T0), version: 2 }])),
      ).rejects.toBeInstanceOf(StaleResourceError);
    });

    it("deletes a resource of the account only, and says whether there was one", async () => {
      const r = resource("acct_a", "we_01aaaaaaaaaaaaaaaaaaaaaaaa", T0);
      await s.storage.transaction((tx) => tx.resources.insert([r]));
      expect(await s.storage.transaction((tx) => tx.resources.delete("acct_b", r.id))).toBe(false);
      expect(await s.inspect.resources("acct_a")).toEqual([r]);
      await s.storage
        .transaction(async (tx) => {
          expect(await tx.resources.delete("acct_a", r.id)).toBe(true);
          expect(await tx.resources.get("acct_a", r.id)).toBeNull();
          throw new Error("roll back");
        })
        .catch(() => undefined);
      expect(await s.inspect.resources("acct_a")).toEqual([r]);
      expect(await s.storage.transaction((tx) => tx.resources.delete("acct_a", r.id))).toBe(true);
      expect(await s.storage.transaction((tx) => tx.resources.delete("acct_a", r.id))).toBe(false);
      expect(await s.inspect.resources("acct_a")).toEqual([]);
    });

    it("walks a list newest first, every row once, with filters", async () => {
      const rows: ResourceRecord[] = [];
      for (let i = 0; i < 23; i++) {
        rows.push({
          ...resource("acct_a", `po_01aaaaaaaaaaaaaaaaaaaaaa${String(i).padStart(2, "0")}`, T0 + Math.floor(i / 3) * 1000),
          status: i % 2 ? "settled" : "created",
          reference: i % 5 === 0 ? `inv_${i}` : `ref_${i}`,
        });
      }
      const other = { ...resource("acct_b", "po_01bbbbbbbbbbbbbbbbbbbbbbbb", T0), reference: "inv_0" };
      const otherKind = { ...resource("acct_a", "rcp_01aaaaaaaaaaaaaaaaaaaaaaaa", T0), kind: "recipient" };
      await s.storage.transaction((tx) => tx.resources.insert([...rows, other, otherKind]));
      const expected = [...rows].sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1)).map((r) => r.id);

      const seen: string[] = [];
      let after: { created: number; id: string } | undefined;
      for (;;) {
        const page = await s.storage.transaction((tx) => tx.resources.list({ accountId: "acct_a", kind: "payout", limit: 7, ...(after ? { after } : {}) }));
        seen.push(...page.map((r) => r.id));
        if (page.length < 7) break;
        after = { created: page[6]!.created, id: page[6]!.id };
      }
      expect(seen).toEqual(expected);

      const list = (q: Record<string, unknown>) => s.storage.transaction((tx) => tx.resources.list({ accountId: "acct_a", kind: "payout", limit: 100, ...q }));
      expect((await list({ status: "settled" })).every((r) => r.status === "settled")).toBe(true);
      expect(await list({ status: "settled" })).toHaveLength(11);
      expect((await list({ createdGte: T0 + 1000, createdLt: T0 + 3000 })).map((r) => r.id)).toEqual(
        expected.filter((id) => {
          const c = rows.find((r) => r.id === id)!.created;
          return c >= T0 + 1000 && c < T0 + 3000;
        }),
      );
      expect((await list({ search: "inv_" })).map((r) => r.reference).sort()).toEqual(["inv_0", "inv_10", "inv_15", "inv_20", "inv_5"].sort());
      expect((await list({ search: "inv_1" })).map((r) => r.reference).sort()).toEqual(["inv_10", "inv_15"]);
      expect((await list({ search: rows[4]!.id })).map((r) => r.id)).toEqual([rows[4]!.id]);
      expect(await list({ search: "po_01aaaa" })).toEqual([]); // ids match exactly, not by prefix
      expect(await list({ search: "%" })).toEqual([]); // LIKE wildcards are literal

      // read backwards (order asc, for ending_before): oldest first, strictly after `after` in that order
      const backwards: string[] = [];
      let from: { created: number; id: string } | undefined;
      for (;;) {
        const page = await list({ order: "asc", limit: 5, ...(from ? { after: from } : {}) });
        backwards.push(...page.map((r) => r.id));
        if (page.length < 5) break;
        from = { created: page[4]!.created, id: page[4]!.id };
      }
      expect(backwards).toEqual([...expected].reverse());
      const pivot = rows[10]!;
      expect((await list({ order: "asc", limit: 4, after: { created: pivot.created, id: pivot.id }, status: "settled" })).map((r) => r.id)).toEqual(
        [...expected]
          .reverse()
          .slice([...expected].reverse().indexOf(pivot.id) + 1)
          .filter((id) => rows.find((r) => r.id === id)!.status === "settled")
          .slice(0, 4),
      );
    });
  });
}

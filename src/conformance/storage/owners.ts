import { describe, expect, it } from "vitest";
import type { IdempotencyRecord } from "../../ports/storage";
import { type SuiteContext, T0, work } from "./fixtures";

const job = (n: number) => `job_01aaaaaaaaaaaaaaaaaaaaaow${n}`;

export function ownerSuite(s: SuiteContext): void {
  describe("owners (takeover of a dead process's work)", () => {
    const run = <T>(fn: Parameters<typeof s.storage.transaction<T>>[0]) => s.storage.transaction(fn);

    it("registers and renews an owner; once its life runs out no heartbeat revives it", async () => {
      expect(await run((tx) => tx.owners.heartbeat("p1", T0, T0 + 5000))).toBe(true);
      expect(await run((tx) => tx.owners.heartbeat("p1", T0 + 4000, T0 + 9000))).toBe(true);
      expect(await run((tx) => tx.owners.getMany(["p1", "nobody"]))).toEqual(new Map([["p1", { owner: "p1", aliveUntil: T0 + 9000, deadAt: null }]]));
      // paused past its life: the late heartbeat is refused, even before anyone declared it dead
      expect(await run((tx) => tx.owners.heartbeat("p1", T0 + 9000, T0 + 14_000))).toBe(false);
      expect((await run((tx) => tx.owners.getMany(["p1"]))).get("p1")).toMatchObject({ aliveUntil: T0 + 9000 });
      expect(await run((tx) => tx.owners.reap(T0 + 8999))).toEqual([]);
      expect(await run((tx) => tx.owners.reap(T0 + 9000))).toEqual(["p1"]);
      expect(await run((tx) => tx.owners.reap(T0 + 9500))).toEqual([]); // once
      // declared dead: refused whatever the clock of the caller says
      expect(await run((tx) => tx.owners.heartbeat("p1", T0 + 1000, T0 + 6000))).toBe(false);
      expect((await run((tx) => tx.owners.getMany(["p1"]))).get("p1")).toEqual({ owner: "p1", aliveUntil: T0 + 9000, deadAt: T0 + 9000 });
      // retiring: dead at once; pruned once dead long enough
      await run((tx) => tx.owners.heartbeat("p2", T0, T0 + 5000));
      await run((tx) => tx.owners.retire("p2", T0 + 100));
      await run((tx) => tx.owners.retire("nobody", T0 + 100));
      expect(await run((tx) => tx.owners.heartbeat("p2", T0 + 200, T0 + 5200))).toBe(false);
      expect(await run((tx) => tx.owners.reap(T0 + 60_000))).toEqual([]);
      expect(await run((tx) => tx.owners.prune(T0 + 100, 10))).toBe(0);
      expect(await run((tx) => tx.owners.prune(T0 + 9001, 10))).toBe(2);
      expect((await run((tx) => tx.owners.getMany(["p1", "p2"]))).size).toBe(0);
    });

    it("hands a dead owner's leases over at once, and refuses its late claims, completions and hand-ons", async () => {
      await run((tx) => tx.work.enqueue([work(job(1), T0), work(job(2), T0), { ...work(job(3), T0), group: "g" }]));
      await run((tx) => tx.owners.heartbeat("p1", T0, T0 + 5000));
      await run((tx) => tx.owners.heartbeat("p2", T0, T0 + 5000));
      const held = await s.storage.claimDueWork({ now: T0, limit: 2, leaseMs: 60_000, owner: "p1" });
      expect(held.map((w) => w.id)).toEqual([job(1), job(2)]);
      // p1 stops heartbeating; p2 goes on
      await run((tx) => tx.owners.heartbeat("p2", T0 + 4000, T0 + 9000));
      expect(await s.storage.claimDueWork({ now: T0 + 4000, limit: 10, leaseMs: 60_000, owner: "p2" })).toMatchObject([{ id: job(3) }]);
      expect(await s.storage.claimDueWork({ now: T0 + 5000, limit: 10, leaseMs: 60_000, owner: "p2" })).toEqual([]); // its leases hold until declared dead
      expect(await run((tx) => tx.owners.reap(T0 + 5000))).toEqual(["p1"]);
      expect((await s.inspect.work()).filter((w) => w.leaseOwner === "p1")).toEqual([]);
      expect(await run((tx) => tx.work.nextRunAt())).toBe(T0);
      const taken = await s.storage.claimDueWork({ now: T0 + 5000, limit: 10, leaseMs: 60_000, owner: "p2" });
      expect(taken.map((w) => [w.id, w.leaseOwner, w.attempts])).toEqual([
        [job(1), "p2", 2],
        [job(2), "p2", 2],
      ]);
      // the late return of p1: fenced everywhere
      expect(await run((tx) => tx.work.complete(job(1), "p1"))).toBe(false);
      expect(await run((tx) => tx.work.release(job(2), "p1", { runAt: T0, lastError: null }))).toBe(false);
      expect(await run((tx) => tx.work.completeMany([job(1), job(2)], "p1"))).toEqual([]);
      await run((tx) => tx.work.enqueue([work(job(4), T0), { ...work(job(5), T0), group: "g" }]));
      expect(await s.storage.claimDueWork({ now: T0 + 6000, limit: 10, leaseMs: 60_000, owner: "p1" })).toEqual([]);
      expect(await s.storage.claimDueWork({ now: T0 + 6000, limit: 10, leaseMs: 60_000, owner: "p1", groupLimit: 5 })).toEqual([]);
      expect(await run((tx) => tx.work.takeNext({ kind: "test.work", groups: ["g"], owner: "p1", now: T0 + 6000, leaseUntil: T0 + 66_000 }))).toEqual([]);
      expect(await run((tx) => tx.work.complete(job(1), "p2"))).toBe(true);
      // an owner whose life ran out, not yet declared dead, claims nothing either
      expect(await s.storage.claimDueWork({ now: T0 + 9000, limit: 10, leaseMs: 60_000, owner: "p2" })).toEqual([]);
      // an owner without a record (a process that does not heartbeat) holds plain leases
      expect((await s.storage.claimDueWork({ now: T0 + 9000, limit: 10, leaseMs: 60_000, owner: "solo" })).map((w) => w.id)).toEqual([job(4), job(5)]);
      expect(await run((tx) => tx.owners.reap(T0 + 9000))).toEqual(["p2"]);
      expect((await s.inspect.work()).filter((w) => w.leaseOwner === "solo").length).toBe(2);
      // p2 held job 2 and job 3: both free now
      expect(
        (await s.inspect.work())
          .filter((w) => w.leaseOwner === null)
          .map((w) => w.id)
          .sort(),
      ).toEqual([job(2), job(3)]);
    });

    it("never leaves a lease with an owner declared dead, when its claims race the reap", async () => {
      // concurrent on a server; one after the other elsewhere, in whichever order they come
      for (let round = 0; round < 12; round++) {
        const owner = `racer-${round}`;
        const at = T0 + round * 10_000;
        await run((tx) => tx.work.enqueue([work(`job_01aaaaaaaaaaaaaaaaaaaar${round.toString(36).padStart(2, "0")}`, at)]));
        await run((tx) => tx.owners.heartbeat(owner, at - 5000, at));
        // the owner claims at the last moment of its life by its clock, while another reaps it by its own
        const [claimed, reaped] = await Promise.all([
          s.storage.claimDueWork({ now: at - 1, limit: 10, leaseMs: 600_000, owner }),
          run((tx) => tx.owners.reap(at)),
        ]);
        expect(reaped).toEqual([owner]);
        expect(claimed.length).toBeLessThanOrEqual(1);
        expect((await s.inspect.work()).filter((w) => w.leaseOwner === owner)).toEqual([]);
        for (const w of await s.inspect.work()) await run((tx) => tx.work.complete(w.id, w.leaseOwner ?? ""));
        const left = await s.storage.claimDueWork({ now: at, limit: 10, leaseMs: 1000, owner: "sweeper" });
        for (const w of left) await run((tx) => tx.work.complete(w.id, "sweeper"));
      }
    });

    it("keeps the owner of an idempotency key's lock", async () => {
      const rec: IdempotencyRecord = {
        accountId: "acct_a",
        key: "k-o",
        fingerprint: "f",
        lockedAt: T0,
        response: null,
        created: T0,
        expiresAt: T0 + 1000,
        owner: "p1",
      };
      await run((tx) => tx.idempotency.claim(rec));
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([rec]);
      expect(await run((tx) => tx.idempotency.claim({ ...rec, owner: "p2" }))).toEqual({ inserted: false, existing: rec });
      await run((tx) => tx.idempotency.put({ ...rec, lockedAt: T0 + 5, owner: "p2" }));
      expect(await s.inspect.idempotencyKeys("acct_a")).toEqual([{ ...rec, lockedAt: T0 + 5, owner: "p2" }]);
      await run((tx) => tx.idempotency.put({ ...rec, key: "k-none", owner: undefined }));
      expect((await s.inspect.idempotencyKeys("acct_a")).find((r) => r.key === "k-none")).toMatchObject({ owner: null });
    });
  });
}

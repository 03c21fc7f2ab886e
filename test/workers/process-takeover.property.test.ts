import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { DueWorkRecord, StorageAdapter } from "../../src/ports/storage";
import { closeSharedStorage, storageKinds } from "../support/storage";

/**
 * Takeover of a dead process's work, on the storage port as the engine's heartbeat uses it
 * (`ProcessLease`: heartbeat, then reap; a refused heartbeat takes a new name): random sequences
 * of claims, heartbeats, deaths (a process stops heartbeating: killed, or paused), time passing,
 * takeovers by the living, completions, and late returns of the dead. Leases are long (10 min),
 * so every takeover seen here comes from a death, not from a lease running out.
 */

const T0 = 1_767_225_600_000;
const LIFE = 5_000;
const LEASE = 600_000;
const ITEMS = 6;
const PROCESSES = 3;

type Command =
  | { op: "claim" | "beat" | "die" | "takeOver" | "lateReturn"; p: number }
  | { op: "complete"; p: number; pick: number }
  | { op: "wait"; ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constantFrom("claim", "beat", "die", "takeOver", "lateReturn"), p: fc.nat(PROCESSES - 1) }) as fc.Arbitrary<Command>,
  fc.record({ op: fc.constant("complete" as const), p: fc.nat(PROCESSES - 1), pick: fc.nat(ITEMS - 1) }),
  fc.record({ op: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 4_000 }) }),
);

interface Proc {
  name: string;
  names: string[];
  /** Heartbeating (false: killed or paused). */
  beating: boolean;
  /** The end of its life by its last accepted heartbeat. */
  aliveUntil: number;
  /** Items it believes it holds, with the name it claimed them under. */
  held: Map<string, string>;
}

/**
 * One sequence on `storage`, which earlier sequences left empty of work (each ends with all of
 * its items done); its items and owners are named apart from theirs (`run`).
 */
async function run(storage: StorageAdapter, commands: Command[], runNo: number): Promise<void> {
  let now = T0;
  let seq = 0;
  const ids = Array.from({ length: ITEMS }, (_, i) => `job_${runNo}_${i}`);
  await storage.transaction((tx) =>
    tx.work.enqueue(
      ids.map(
        (id): DueWorkRecord => ({
          id,
          kind: "test.work",
          accountId: null,
          livemode: null,
          payload: {},
          runAt: T0,
          leaseOwner: null,
          leaseUntil: null,
          attempts: 0,
          lastError: null,
          status: "ready",
          dedupeKey: null,
          created: T0,
        }),
      ),
    ),
  );
  const completed = new Map<string, string>();
  const procs: Proc[] = Array.from({ length: PROCESSES }, (_, i) => ({
    name: `r${runNo}p${i}.0`,
    names: [`r${runNo}p${i}.0`],
    beating: true,
    aliveUntil: now,
    held: new Map(),
  }));
  const tx = <T>(fn: Parameters<StorageAdapter["transaction"]>[0]) => storage.transaction(fn) as Promise<T>;
  /** One heartbeat of `p` as `ProcessLease.beat` does it. */
  const beat = async (p: Proc) => {
    if (await tx<boolean>((t) => t.owners.heartbeat(p.name, now, now + LIFE))) {
      p.aliveUntil = now + LIFE;
    } else {
      p.name = `${p.name.split(".")[0]}.${++seq}`;
      p.names.push(p.name);
      expect(await tx<boolean>((t) => t.owners.heartbeat(p.name, now, now + LIFE))).toBe(true);
      p.aliveUntil = now + LIFE;
    }
    await tx((t) => t.owners.reap(now));
  };
  for (const p of procs) await beat(p);
  /** This sequence's items still in storage. */
  const items = () =>
    tx<DueWorkRecord[]>(async (t) => {
      const found: DueWorkRecord[] = [];
      for (const id of ids) {
        const w = await t.work.get(id);
        if (w) found.push(w);
      }
      return found;
    });
  const claim = async (p: Proc) => {
    for (const w of await storage.claimDueWork({ now, limit: 2, leaseMs: LEASE, owner: p.name })) p.held.set(w.id, p.name);
  };

  for (const c of commands) {
    if (c.op === "wait") {
      now += c.ms;
      continue;
    }
    const p = procs[c.p]!;
    const dead = !p.beating;
    switch (c.op) {
      case "claim":
        if (!dead) await claim(p);
        break;
      case "beat":
        if (!dead) await beat(p);
        break;
      case "die":
        p.beating = false;
        break;
      case "takeOver":
        if (!dead) {
          await tx((t) => t.owners.reap(now));
          await claim(p);
          // every process whose life ran out has been declared dead, and holds nothing now
          const work = await items();
          for (const q of procs) {
            if (q.aliveUntil > now) continue;
            expect(work.filter((w) => w.leaseOwner !== null && q.names.includes(w.leaseOwner))).toEqual([]);
          }
          // nothing left unleased while a living process asked for work (within its claim's limit)
          const unleased = work.filter((w) => w.leaseOwner === null);
          if (unleased.length) expect(await tx<number | null>((t) => t.work.nextRunAt())).toBeLessThanOrEqual(now);
        }
        break;
      case "complete": {
        if (dead) break;
        const id = ids[c.pick]!;
        const under = p.held.get(id);
        if (under === undefined) break;
        p.held.delete(id);
        if (await tx<boolean>((t) => t.work.complete(id, under))) {
          expect(completed.has(id)).toBe(false); // never done twice
          completed.set(id, under);
        }
        break;
      }
      case "lateReturn": {
        if (!dead) break;
        // the process wakes: whatever it did before its next heartbeat, then that heartbeat
        const lifeRanOut = p.aliveUntil <= now;
        const declared = (await tx<Map<string, { deadAt: number | null }>>((t) => t.owners.getMany([p.name]))).get(p.name)?.deadAt != null;
        for (const [id, under] of p.held) {
          const w = await tx<DueWorkRecord | null>((t) => t.work.get(id));
          const mine = w !== null && w.leaseOwner === under;
          const done = await tx<boolean>((t) => t.work.complete(id, under));
          expect(done).toBe(mine);
          if (declared) expect(done).toBe(false); // fenced: a declared death ended its leases
          if (done) {
            expect(completed.has(id)).toBe(false);
            completed.set(id, under);
          }
        }
        p.held.clear();
        const late = await storage.claimDueWork({ now, limit: 2, leaseMs: LEASE, owner: p.name });
        if (lifeRanOut) expect(late).toEqual([]); // a dead owner claims nothing
        for (const w of late) await tx((t) => t.work.release(w.id, p.name, { runAt: now, lastError: null }));
        const before = p.name;
        await beat(p);
        if (lifeRanOut) expect(p.name).not.toBe(before); // its old name stays dead
        p.beating = true;
        break;
      }
    }
    // after every step: no lease held by a declared-dead owner, and nothing lost
    const work = await items();
    const leaseOwners = [...new Set(work.map((w) => w.leaseOwner).filter((o): o is string => o !== null))];
    const records = await tx<Map<string, { deadAt: number | null }>>((t) => t.owners.getMany(leaseOwners));
    for (const o of leaseOwners) expect(records.get(o)?.deadAt ?? null).toBeNull();
    expect(work.length + completed.size).toBe(ITEMS);
    for (const w of work) expect(completed.has(w.id)).toBe(false);
  }

  // every process killed for good: the living take all its work over once its life has run out
  for (const p of procs) p.beating = true;
  now += LIFE;
  for (const p of procs) {
    await beat(p);
    await claim(p);
    await claim(p);
    await claim(p);
  }
  for (const p of procs) {
    for (const [id, under] of p.held) if (await tx<boolean>((t) => t.work.complete(id, under))) completed.set(id, under);
  }
  expect(completed.size).toBe(ITEMS);
}

describe("takeover of a dead process's work (fast-check)", () => {
  for (const kind of storageKinds()) {
    it(`on ${kind.name}: never held by a dead owner, never lost, never done twice, taken over once the owner's life ran out`, async () => {
      const h = await kind.factory();
      let runs = 0;
      try {
        await h.storage.init();
        await fc.assert(
          fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40 }), (commands) => run(h.storage, commands, runs++)),
          { numRuns: kind.name === "memory" ? 300 : 40, endOnFailure: true },
        );
      } finally {
        await h.storage.close();
        await h.close();
      }
    }, 120_000);
  }
});

afterAll(closeSharedStorage);

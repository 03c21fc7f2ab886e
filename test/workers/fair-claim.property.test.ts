import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { roomOf, type AccountRoom, type DueWorkRecord } from "../../src/ports/storage";
import { accountRoom, fairShare } from "../../src/workers/work-lanes";
import { closeSharedStorage, storageKinds } from "../support/storage";

const T0 = Date.UTC(2026, 0, 1);
const ACCOUNTS = ["a", "b", "c", null] as const;
const GROUPS = ["g1", "g2", "g3", null] as const;

interface Spec {
  items: { account: (typeof ACCOUNTS)[number]; group: (typeof GROUPS)[number]; at: number }[];
  /** Items leased before the claim (by another worker), counting against their group. */
  held: number;
  limit: number;
  groupLimit: number | undefined;
  room: Partial<Record<"a" | "b" | "c", number>>;
  others: number;
}

const item = fc.record({ account: fc.constantFrom(...ACCOUNTS), group: fc.constantFrom(...GROUPS), at: fc.integer({ min: 0, max: 30 }) });

/** A backlog of one account older than everything else (a slow tenant's), then items of anyone. */
const items = fc
  .tuple(fc.constantFrom("a", "b"), fc.constantFrom(...GROUPS), fc.integer({ min: 0, max: 30 }), fc.array(item, { maxLength: 30 }))
  .map(([account, group, n, rest]) => [...Array.from({ length: n }, () => ({ account, group, at: 0 })), ...rest.map((it) => ({ ...it, at: it.at + 1 }))]);

const spec: fc.Arbitrary<Spec> = fc.record({
  items,
  held: fc.integer({ min: 0, max: 6 }),
  limit: fc.integer({ min: 1, max: 12 }),
  groupLimit: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  room: fc.record({ a: fc.integer({ min: 0, max: 5 }), b: fc.integer({ min: 0, max: 5 }), c: fc.integer({ min: 0, max: 5 }) }, { requiredKeys: [] }),
  others: fc.integer({ min: 0, max: 5 }),
});

/**
 * What the claim must take: due items oldest first, each while its account has room left (its
 * room, less what the claim took of it) and its group has room (the limit, less live leases and
 * what the claim took), until `limit`. An account with a due item it could take waits behind no
 * more than the room of each other account, and a claim that comes back short took all it may.
 */
function expected(
  due: readonly DueWorkRecord[],
  leasedPerGroup: Map<string, number>,
  limit: number,
  groupLimit: number | undefined,
  shares: AccountRoom,
): string[] {
  const taken = new Map<string, number>();
  const groups = new Map(leasedPerGroup);
  const out: string[] = [];
  for (const w of [...due].sort((x, y) => x.runAt - y.runAt || (x.id < y.id ? -1 : 1))) {
    if (out.length >= limit) break;
    if (w.accountId !== null && (taken.get(w.accountId) ?? 0) >= roomOf(shares, w.accountId)) continue;
    if (groupLimit !== undefined && w.group) {
      if ((groups.get(w.group) ?? 0) >= groupLimit) continue;
      groups.set(w.group, (groups.get(w.group) ?? 0) + 1);
    }
    if (w.accountId !== null) taken.set(w.accountId, (taken.get(w.accountId) ?? 0) + 1);
    out.push(w.id);
  }
  return out;
}

describe("fair shares of the delivery lane", () => {
  it("an account alone takes half the slots at most, and two leave a sixth of them free", () => {
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 512 }), (slots) => {
        const first = accountRoom(slots, new Map()).others;
        expect(first).toBe(fairShare(slots, 1));
        expect(first).toBeLessThanOrEqual(slots / 2);
        const second = accountRoom(slots, new Map([["a", first]])).others;
        expect(first + second).toBeLessThan(slots);
        // the first is over its share once a second holds slots: it gets no more
        expect(
          accountRoom(
            slots,
            new Map([
              ["a", first],
              ["b", second],
            ]),
          ).room.a,
        ).toBe(Math.max(0, fairShare(slots, 2) - first));
      }),
    );
  });
});

let run = 0;
for (const kind of storageKinds()) {
  describe(`the fair claim over ${kind.name}`, () => {
    it("takes each account's due items up to its room, oldest first, and stops short only when nothing more is allowed", async () => {
      const harness = await kind.factory();
      await harness.storage.init();
      try {
        await fc.assert(
          fc.asyncProperty(spec, async (p) => {
            // names of this run only: earlier runs' items never meet it (kind, accounts and groups)
            const tag = `r${run++}`;
            const workKind = `test.fair.${tag}`;
            const items: DueWorkRecord[] = p.items.map((it, i) => ({
              id: `job_01fair${tag.padStart(6, "0")}${String(i).padStart(14, "0")}`,
              kind: workKind,
              accountId: it.account === null ? null : `acct_${tag}_${it.account}`,
              livemode: it.account === null ? null : false,
              payload: {},
              runAt: T0 + it.at,
              leaseOwner: null,
              leaseUntil: null,
              attempts: 0,
              lastError: null,
              status: "ready",
              dedupeKey: null,
              group: it.group === null ? null : `we_${tag}_${it.group}`,
              created: T0,
            }));
            if (items.length) await harness.storage.transaction((tx) => tx.work.enqueue(items));
            const now = T0 + 100;
            const held = await harness.storage.claimDueWork({ now, limit: p.held, leaseMs: 60_000, owner: `other_${tag}`, onlyKinds: [workKind] });
            const heldIds = new Set(held.map((w) => w.id));
            const leasedPerGroup = new Map<string, number>();
            for (const w of held) if (w.group) leasedPerGroup.set(w.group, (leasedPerGroup.get(w.group) ?? 0) + 1);
            const shares: AccountRoom = {
              room: Object.fromEntries(Object.entries(p.room).map(([a, n]) => [`acct_${tag}_${a}`, n])),
              others: p.others,
            };
            const claimed = await harness.storage.claimDueWork({
              now,
              limit: p.limit,
              leaseMs: 60_000,
              owner: `me_${tag}`,
              onlyKinds: [workKind],
              accountRoom: shares,
              ...(p.groupLimit !== undefined ? { groupLimit: p.groupLimit } : {}),
            });
            const want = expected(
              items.filter((w) => !heldIds.has(w.id)),
              leasedPerGroup,
              p.limit,
              p.groupLimit,
              shares,
            );
            expect(claimed.map((w) => w.id).sort()).toEqual([...want].sort());
            expect(claimed.every((w) => w.leaseOwner === `me_${tag}` && w.attempts === 1)).toBe(true);
          }),
          { numRuns: kind.name === "memory" ? 200 : 40 },
        );
      } finally {
        await harness.storage.close();
        await harness.close();
      }
    });
  });
}

afterAll(closeSharedStorage);

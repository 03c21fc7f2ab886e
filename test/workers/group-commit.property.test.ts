import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/workers/group-commit";

/**
 * The group commit every batched webhook stage shares (fan-outs, item reads, records): items
 * submitted at random moments, writes that take random time, some items that always fail. Then
 * every item settles once with its own output (or its own error), is committed in exactly one
 * successful write, batches take items in the order submitted, and the sizes hold: at most
 * `parallel` batches at once, at most the storage's batch size per write.
 */

const ticks = (n: number) => new Promise<void>((resolve) => (n <= 0 ? resolve() : setImmediate(() => void ticks(n - 1).then(resolve))));

/** An item: whether every write of it fails, the ticks before it is submitted, the ticks a write of it takes. */
const itemArb = fc.record({
  failing: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  gap: fc.nat({ max: 3 }),
  delay: fc.nat({ max: 4 }),
});

const scenarioArb = fc.record({
  concurrentTransactions: fc.boolean(),
  maxBatch: fc.integer({ min: 1, max: 8 }),
  oneAtATime: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
  parallel: fc.integer({ min: 1, max: 4 }),
  items: fc.array(itemArb, { minLength: 1, maxLength: 40 }),
});

describe("GroupCommit", () => {
  test.prop([scenarioArb])(
    "every item settles once with its own result; a failing item fails only itself; order and sizes hold",
    async ({ concurrentTransactions, maxBatch, oneAtATime, parallel, items }) => {
      const size = concurrentTransactions ? maxBatch : (oneAtATime ?? maxBatch);
      /** The batch each item was first written in (its together write). */
      const batchOf = new Map<number, number>();
      /** Writes in flight, by batch. */
      const active = new Map<number, number>();
      let batches = 0;
      let mostAtOnce = 0;
      const together: number[] = [];
      const committed: number[] = [];
      const group = new GroupCommit<number, string>(
        { concurrentTransactions },
        { maxBatch, ...(oneAtATime !== undefined ? { oneAtATime } : {}), parallel },
        async (ids) => {
          expect(ids.length).toBeGreaterThanOrEqual(1);
          expect(ids.length).toBeLessThanOrEqual(size);
          if (!batchOf.has(ids[0]!)) {
            // a batch's first write has every item new; a retry alone has one already written
            batches++;
            for (const id of ids) {
              expect(batchOf.has(id)).toBe(false);
              batchOf.set(id, batches);
            }
            together.push(...ids);
          } else {
            expect(ids).toHaveLength(1);
          }
          const batch = batchOf.get(ids[0]!)!;
          active.set(batch, (active.get(batch) ?? 0) + 1);
          mostAtOnce = Math.max(mostAtOnce, [...active.values()].filter((n) => n > 0).length);
          try {
            await ticks(Math.max(...ids.map((id) => items[id]!.delay)));
            const bad = ids.filter((id) => items[id]!.failing);
            if (bad.length) throw new Error(`failed: ${bad.join(",")}`);
            committed.push(...ids);
            return ids.map((id) => `out ${id}`);
          } finally {
            active.set(batch, active.get(batch)! - 1);
          }
        },
      );
      expect(group.maxBatch).toBe(size);

      const settled: Promise<PromiseSettledResult<string>>[] = [];
      for (let id = 0; id < items.length; id++) {
        await ticks(items[id]!.gap);
        settled.push(
          group.submit(id).then(
            (value) => ({ status: "fulfilled", value }),
            (reason: unknown) => ({ status: "rejected", reason }),
          ),
        );
      }
      const results = await Promise.all(settled);

      results.forEach((result, id) => {
        if (items[id]!.failing) {
          // its own error, from being written alone: no other item's
          expect(result.status).toBe("rejected");
          expect(String((result as PromiseRejectedResult).reason)).toBe(`Error: failed: ${id}`);
        } else {
          expect(result).toEqual({ status: "fulfilled", value: `out ${id}` });
        }
      });
      // committed exactly once each (never written twice to effect), failures never
      expect([...committed].sort((a, b) => a - b)).toEqual(items.flatMap((item, id) => (item.failing ? [] : [id])));
      // batches take items in the order they were submitted
      expect(together).toEqual(items.map((_, id) => id));
      expect(mostAtOnce).toBeLessThanOrEqual(parallel);
    },
  );

  it("writes an item at once, alone, when nothing else runs", async () => {
    const writes: number[][] = [];
    const group = new GroupCommit<number, number>({ concurrentTransactions: true }, { maxBatch: 64, parallel: 2 }, async (ids) => {
      writes.push([...ids]);
      return ids.map((id) => id * 2);
    });
    const out = group.submit(21);
    expect(writes).toEqual([[21]]); // before the caller even waits
    expect(await out).toBe(42);
  });

  it("queues what comes while its batches run, and writes it together next", async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const group = new GroupCommit<number, number>({ concurrentTransactions: false }, { maxBatch: 64, oneAtATime: 3, parallel: 1 }, async (ids) => {
      writes.push([...ids]);
      await gate;
      return ids;
    });
    const outs = [1, 2, 3, 4, 5].map((id) => group.submit(id));
    release();
    expect(await Promise.all(outs)).toEqual([1, 2, 3, 4, 5]);
    expect(writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it("fails every item alone when a write yields the wrong number of outputs", async () => {
    const group = new GroupCommit<number, number>({ concurrentTransactions: true }, { maxBatch: 4, parallel: 1 }, async () => []);
    await expect(group.submit(1)).rejects.toThrow("yielded 0 outputs for 1 items");
  });
});

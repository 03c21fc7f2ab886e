import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyedTurns } from "../../../adapters/postgres/turns";

/**
 * `KeyedTurns` (what a server's transactions of one process queue on before they lock balance
 * rows): takers of a key hold it one at a time, in the order they came; takers of other keys
 * never wait for them; and a taker that waited `maxWaitMs` goes ahead anyway (the turns are an
 * order in front of a real lock, never a lock that could hang).
 */
const KEYS = ["a", "b", "c"];

describe("KeyedTurns", () => {
  it("gives each key to one taker at a time, first come first served, and never holds up other keys", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ keys: fc.subarray(KEYS, { minLength: 1 }), holdTicks: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 25 }),
        async (takers) => {
          const turns = new KeyedTurns(60_000);
          const holding = new Map<string, number>();
          const order = new Map<string, number[]>();
          await Promise.all(
            takers.map(async ({ keys, holdTicks }, i) => {
              const release = await turns.take(keys);
              for (const k of keys) {
                expect(holding.get(k)).toBeUndefined(); // nobody else holds it
                holding.set(k, i);
                order.set(k, [...(order.get(k) ?? []), i]);
              }
              for (let t = 0; t < holdTicks; t++) await new Promise((r) => setImmediate(r));
              for (const k of keys) holding.delete(k);
              release();
            }),
          );
          // per key, in the order the takers came
          for (const k of KEYS) {
            const expected = takers.flatMap((t, i) => (t.keys.includes(k) ? [i] : []));
            expect(order.get(k) ?? []).toEqual(expected);
          }
          expect(turns.busy).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("lets a taker go ahead once it waited maxWaitMs, and keeps the order for those after it", async () => {
    const turns = new KeyedTurns(30);
    const first = await turns.take(["k"]);
    const started = performance.now();
    const second = await turns.take(["k"]); // the first never releases in time
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    let thirdIn = false;
    const third = turns.take(["k"]).then((release) => {
      thirdIn = true;
      return release;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(thirdIn).toBe(false); // waits for both before it (or its own 30 ms)
    first();
    second();
    (await third)();
    expect(thirdIn).toBe(true);
    expect(turns.busy).toBe(0);
  });

  it("takes a repeated key once and gives every key back", async () => {
    const turns = new KeyedTurns(1_000);
    const release = await turns.take(["x", "y", "x"]);
    expect(turns.busy).toBe(2);
    release();
    expect(turns.busy).toBe(0);
  });
});

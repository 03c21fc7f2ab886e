import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BackgroundLimit, PriorityMutex, inBackground, isBackground } from "../../src/concurrency/priority";

const tick = () => new Promise<void>((r) => setImmediate(r));
const now = () => performance.now();

/**
 * The queue in front of PGlite's one session (issue 11): one caller at a time, requests ahead of
 * background work, and background work never starved.
 */
describe("PriorityMutex", () => {
  it("marks what runs inside inBackground, through awaits, and nothing else", async () => {
    expect(isBackground()).toBe(false);
    await inBackground(async () => {
      await tick();
      expect(isBackground()).toBe(true);
    });
    expect(isBackground()).toBe(false);
  });

  it("runs one caller at a time, each once, foreground first, at most maxForegroundRun ahead of a waiting background caller", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ background: fc.boolean(), ticks: fc.nat(3), failing: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        async (callers, maxForegroundRun) => {
          // the wait bound is out of reach here, so the order depends on the classes alone
          const mutex = new PriorityMutex({ now, maxForegroundRun, maxBackgroundWaitMs: 1e9 });
          let inside = 0;
          let most = 0;
          const order: number[] = [];
          // a holder keeps the mutex while every caller queues up
          let open!: () => void;
          const holder = mutex.run(() => new Promise<void>((r) => (open = r)));
          await tick();
          const runs = callers.map((c, i) => {
            const body = async () => {
              most = Math.max(most, ++inside);
              order.push(i);
              for (let t = 0; t < c.ticks; t++) await tick();
              inside--;
              if (c.failing) throw new Error(`caller ${i} fails`);
              return i;
            };
            return c.background ? inBackground(() => mutex.run(body)) : mutex.run(body);
          });
          await tick(); // background callers step aside for I/O before they queue
          expect(mutex.waiting).toEqual({
            foreground: callers.filter((c) => !c.background).length,
            background: callers.filter((c) => c.background).length,
          });
          open();
          await holder;
          const settled = await Promise.allSettled(runs);
          expect(most).toBe(1);
          settled.forEach((r, i) => expect(r.status).toBe(callers[i]!.failing ? "rejected" : "fulfilled"));
          expect([...order].sort((a, b) => a - b)).toEqual(callers.map((_, i) => i));

          // the expected order: each class in call order; a background caller after every
          // maxForegroundRun foreground ones while both wait
          const fg = callers.flatMap((c, i) => (c.background ? [] : [i]));
          const bg = callers.flatMap((c, i) => (c.background ? [i] : []));
          const expected: number[] = [];
          let run = 0;
          while (fg.length || bg.length) {
            if (bg.length && (!fg.length || run >= maxForegroundRun)) {
              expected.push(bg.shift()!);
              run = 0;
            } else {
              expected.push(fg.shift()!);
              run = bg.length ? run + 1 : 0;
            }
          }
          expect(order).toEqual(expected);
          expect(mutex.waiting).toEqual({ foreground: 0, background: 0 });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("lets a background caller go next once it has waited maxBackgroundWaitMs", async () => {
    const mutex = new PriorityMutex({ now, maxForegroundRun: 1000, maxBackgroundWaitMs: 20 });
    const order: string[] = [];
    let open!: () => void;
    const holder = mutex.run(() => new Promise<void>((r) => (open = r)));
    await tick();
    const background = inBackground(() => mutex.run(async () => void order.push("background")));
    await tick();
    await new Promise((r) => setTimeout(r, 40));
    const foreground = mutex.run(async () => void order.push("foreground"));
    open();
    await Promise.all([holder, background, foreground]);
    expect(order).toEqual(["background", "foreground"]);
  });

  it("lets the event loop run between background callers whose work resolves through promises alone", async () => {
    const mutex = new PriorityMutex({ now });
    let done = 0;
    const chain = inBackground(async () => {
      for (let i = 0; i < 1000; i++) await mutex.run(async () => void done++);
    });
    // a request's I/O callback: it must not wait for the whole chain
    const seenAt = await new Promise<number>((resolve) => setImmediate(() => resolve(done)));
    await chain;
    expect(seenAt).toBeLessThan(10);
    expect(done).toBe(1000);
  });

  it("BackgroundLimit: at most `limit` background callers at once, foreground ones never held, everyone runs once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ background: fc.boolean(), ticks: fc.nat(4), failing: fc.boolean() }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        async (callers, limit) => {
          const gate = new BackgroundLimit(limit);
          let background = 0;
          let most = 0;
          let foregroundWaited = false;
          const ran: number[] = [];
          const runs = callers.map((c, i) => {
            const body = async () => {
              if (c.background) most = Math.max(most, ++background);
              ran.push(i);
              for (let t = 0; t < c.ticks; t++) await tick();
              if (c.background) background--;
              if (c.failing) throw new Error(`caller ${i} fails`);
            };
            if (c.background) return inBackground(() => gate.run(body));
            const started = ran.length;
            const run = gate.run(body);
            if (ran.length === started) foregroundWaited = true; // a foreground body starts at once
            return run;
          });
          await Promise.allSettled(runs);
          expect(most).toBeLessThanOrEqual(limit);
          expect(foregroundWaited).toBe(false);
          expect([...ran].sort((a, b) => a - b)).toEqual(callers.map((_, i) => i));
          // the slots all came back: `limit` more background callers run side by side at once
          let side = 0;
          let peak = 0;
          await Promise.all(
            Array.from({ length: limit }, () =>
              inBackground(() =>
                gate.run(async () => {
                  peak = Math.max(peak, ++side);
                  await tick();
                  side--;
                }),
              ),
            ),
          );
          expect(peak).toBe(limit);
        },
      ),
      { numRuns: 200 },
    );
  });
});

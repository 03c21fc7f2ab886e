import { ok } from "neverthrow";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/engine/command";
import { WorkerRunner } from "../../src/workers/runner";
import { MAINTENANCE } from "../../src/workers/maintenance";
import { PermanentWorkError, defineWork } from "../../src/workers/due-work";
import { Schema, s } from "../../src/validation/schema";
import { testWorld, type TestWorld } from "../support/engine";
import { closeSharedStorage, storageKinds } from "../support/storage";
import { engineDeps } from "../../src/engine/engine";
import { StorageUnavailableError } from "../../src/ports/public";
import { causeOf } from "../../src/errors";
import { FaultyStorage } from "../support/faulty-storage";

/** A payload of any shape: the runner's own tests care about the queue, not the payload. */
class AnyPayload extends Schema<unknown> {
  parse(value: unknown) {
    return ok(value);
  }
  protected baseJsonSchema() {
    return {};
  }
}

async function schedule(w: TestWorld, kind: string, payload: unknown, runInMs = 0, dedupeKey?: string, group?: string) {
  await runCommand(engineDeps(w.engine), w.ctx, async (uow) => {
    uow.schedule(defineWork(kind, new AnyPayload()), payload, { runAt: uow.now + runInMs, ...(dedupeKey ? { dedupeKey } : {}), ...(group ? { group } : {}) });
    return ok(null);
  });
}

for (const kind of storageKinds()) {
  describe(`worker runner on ${kind.name}`, () => {
    let w: TestWorld;
    beforeEach(async () => {
      w = await testWorld(kind, { worker: { maxAttempts: 3, concurrency: 3, leaseMs: 30_000 } });
      await w.engine.worker.runDue(); // the engine's own housekeeping
    });
    afterEach(() => w.close());

    it("runs work when it falls due, not before", async () => {
      const ran: unknown[] = [];
      w.engine.worker.register("test.say", async (job) => {
        ran.push(job.payload);
      });
      await schedule(w, "test.say", { n: 1 }, 5_000);
      expect(await w.engine.worker.runDue()).toBe(0);
      w.clock.advance(4_999);
      expect(await w.engine.worker.runDue()).toBe(0);
      w.clock.advance(1);
      expect(await w.engine.worker.runDue()).toBe(1);
      expect(ran).toEqual([{ n: 1 }]);
      expect((await w.harness.inspect.work()).filter((j) => j.kind === "test.say")).toEqual([]);
    });

    it("retries a failing handler with backoff and marks it dead after the last attempt", async () => {
      let calls = 0;
      w.engine.worker.register("test.fail", async () => {
        calls++;
        throw new Error(`failure ${calls}`);
      });
      await schedule(w, "test.fail", {});
      await w.engine.worker.runDue();
      let [job] = (await w.harness.inspect.work()).filter((j) => j.kind === "test.fail");
      expect(job).toMatchObject({ attempts: 1, lastError: "failure 1", status: "ready", leaseOwner: null });
      const delay = job!.runAt - w.clock.now();
      expect(delay).toBeGreaterThanOrEqual(900);
      expect(delay).toBeLessThanOrEqual(1_100);
      w.clock.advance(delay);
      await w.engine.worker.runDue();
      [job] = (await w.harness.inspect.work()).filter((j) => j.kind === "test.fail");
      expect(job!.runAt - w.clock.now()).toBeGreaterThanOrEqual(1_800); // doubled
      w.clock.advance(job!.runAt - w.clock.now());
      await w.engine.worker.runDue();
      [job] = (await w.harness.inspect.work()).filter((j) => j.kind === "test.fail");
      expect(job).toMatchObject({ status: "dead", attempts: 3, lastError: "failure 3" });
      w.clock.advance(10 * 3_600_000);
      await w.engine.worker.runDue();
      expect(calls).toBe(3);
    });

    it("survives a crash: an item leased by a dead worker runs again once the lease expires", async () => {
      const ran: string[] = [];
      w.engine.worker.register("test.crash", async (job) => {
        ran.push(job.id);
      });
      await schedule(w, "test.crash", {});
      const [stolen] = await w.engine.storage.claimDueWork({ now: w.clock.now(), limit: 10, leaseMs: 30_000, owner: "wrk_dead" });
      expect(stolen?.kind).toBe("test.crash");
      expect(await w.engine.worker.runDue()).toBe(0); // still leased by the dead worker
      w.clock.advance(30_000);
      expect(await w.engine.worker.runDue()).toBe(1);
      expect(ran).toEqual([stolen!.id]);
      // the dead worker coming back cannot complete what it no longer holds
      expect(await w.engine.storage.transaction((tx) => tx.work.complete(stolen!.id, "wrk_dead"))).toBe(false);
    });

    it("never runs more items at once than its concurrency, and drains everything", async () => {
      let running = 0;
      let peak = 0;
      let done = 0;
      w.engine.worker.register("test.slow", async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        running--;
        done++;
      });
      for (let i = 0; i < 12; i++) await schedule(w, "test.slow", { i });
      expect(await w.engine.worker.runDue()).toBe(12);
      expect(done).toBe(12);
      expect(peak).toBeLessThanOrEqual(3);
    });

    it("keeps one item per dedupe key", async () => {
      w.engine.worker.register("test.once", async () => undefined);
      await schedule(w, "test.once", { a: 1 }, 0, "once:1");
      await schedule(w, "test.once", { a: 2 }, 0, "once:1");
      expect(await w.engine.worker.runDue()).toBe(1);
    });

    it("reschedules recurring work with fresh attempts", async () => {
      let runs = 0;
      w.engine.worker.register("test.every", async () => {
        runs++;
        return { kind: "reschedule", at: w.clock.now() + 1_000 };
      });
      await schedule(w, "test.every", {});
      for (let i = 0; i < 5; i++) {
        await w.engine.worker.runDue();
        w.clock.advance(1_000);
      }
      expect(runs).toBe(5);
      const [job] = (await w.harness.inspect.work()).filter((j) => j.kind === "test.every");
      expect(job).toMatchObject({ attempts: 0, status: "ready" });
    });

    it("the polling loop wakes when a command schedules due work, and stops cleanly", async () => {
      const ran: number[] = [];
      let resolve!: () => void;
      const seen = new Promise<void>((r) => (resolve = r));
      w.engine.worker.register("test.loop", async (job) => {
        ran.push((job.payload as { n: number }).n);
        resolve();
      });
      w.engine.worker.start();
      await schedule(w, "test.loop", { n: 7 }); // the manual clock never moves: only the wake runs it
      await seen;
      await w.engine.worker.stop();
      expect(ran).toEqual([7]);
    });

    it("runs a lane in its own pool: its slow items never take the default lane's slots, and a group waits its turn", async () => {
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      const log: string[] = [];
      let slowRunning = 0;
      let slowPeak = 0;
      w.engine.worker.addLane({ kinds: ["test.lane"], concurrency: 4, groupLimit: 1 });
      w.engine.worker.register("test.lane", async (job) => {
        slowRunning++;
        slowPeak = Math.max(slowPeak, slowRunning);
        log.push(`slow ${(job.payload as { n: number }).n} start`);
        await gate;
        slowRunning--;
      });
      w.engine.worker.register("test.fast", async (job) => {
        log.push(`fast ${(job.payload as { n: number }).n}`);
      });
      for (let n = 0; n < 3; n++) await schedule(w, "test.lane", { n }, 0, undefined, "g1");
      await schedule(w, "test.lane", { n: 9 }, 0, undefined, "g2");
      for (let n = 0; n < 5; n++) await schedule(w, "test.fast", { n });
      const drained = w.engine.worker.runDue();
      while (log.filter((l) => l.startsWith("fast")).length < 5) await new Promise((r) => setImmediate(r));
      // every fast item ran while the slow ones hang; one item of g1 and one of g2 hold the lane
      expect(log.filter((l) => l.startsWith("slow")).sort()).toEqual(["slow 0 start", "slow 9 start"]);
      open();
      expect(await drained).toBe(9);
      expect(slowPeak).toBe(2);
      expect(log.filter((l) => l.startsWith("slow 0") || l.startsWith("slow 1") || l.startsWith("slow 2"))).toEqual([
        "slow 0 start",
        "slow 1 start",
        "slow 2 start",
      ]);
    });

    it("refills a lane as soon as refillAt of its slots are free, while its other items still run", async () => {
      const gates = new Map<number, () => void>();
      const started: number[] = [];
      w.engine.worker.addLane({ kinds: ["test.long"], concurrency: 4, refillAt: 1 });
      w.engine.worker.register("test.long", async (job) => {
        const { n } = job.payload as { n: number };
        started.push(n);
        await new Promise<void>((r) => gates.set(n, r));
      });
      for (let n = 0; n < 6; n++) await schedule(w, "test.long", { n }, n);
      w.clock.advance(10);
      const drained = w.engine.worker.runDue();
      const until = async (count: number) => {
        while (started.length < count || gates.size < count) await new Promise((r) => setImmediate(r));
      };
      await until(4);
      expect(started).toEqual([0, 1, 2, 3]);
      gates.get(0)!(); // one slot frees while three items still run: the lane claims for it at once
      await until(5);
      expect(started).toEqual([0, 1, 2, 3, 4]);
      for (const n of [1, 2, 3, 4]) gates.get(n)!();
      await until(6);
      gates.get(5)!();
      expect(await drained).toBe(6);
    });

    it("regression: work scheduled while another lane claims does not end the drain early", async () => {
      // Claims that answer a beat late: the item finishes (and schedules more) in between.
      const storage = w.engine.storage;
      const slowClaims = {
        ...storage,
        claimDueWork: async (request: Parameters<typeof storage.claimDueWork>[0]) => {
          const jobs = await storage.claimDueWork(request);
          await new Promise((r) => setTimeout(r, 5));
          return jobs;
        },
      };
      const runner = new WorkerRunner(slowClaims, w.clock, engineDeps(w.engine).ids, engineDeps(w.engine).random);
      const ran: string[] = [];
      runner.addLane({ kinds: ["test.child"], concurrency: 2 });
      runner.register("test.spawn", async () => {
        await new Promise((r) => setTimeout(r, 2)); // the child lane's claim has looked by now, and not answered yet
        await schedule(w, "test.child", {});
        runner.wake(); // what the engine's commands do for its own runner
        ran.push("spawn");
      });
      runner.register("test.child", async () => {
        ran.push("child");
      });
      await schedule(w, "test.spawn", {});
      expect(await runner.runDue()).toBe(2);
      expect(ran).toEqual(["spawn", "child"]);
    });

    it("leaves an item a handler settled itself alone", async () => {
      w.engine.worker.register("test.settle", async (job) => {
        await w.engine.storage.transaction(async (tx) => {
          expect(await tx.work.release(job.id, job.leaseOwner!, { runAt: w.clock.now() + 60_000, lastError: "own" })).toBe(true);
        });
        return { kind: "settled" };
      });
      await schedule(w, "test.settle", {});
      expect(await w.engine.worker.runDue()).toBe(1);
      const [job] = (await w.harness.inspect.work()).filter((j) => j.kind === "test.settle");
      expect(job).toMatchObject({ runAt: w.clock.now() + 60_000, lastError: "own", leaseOwner: null, attempts: 1 });
    });

    it("runs an item a settled handler handed its slot on to, in that slot, without a claim; gives it back when stopping", async () => {
      const ran: { id: string; attempts: number }[] = [];
      let stopAfter = Number.POSITIVE_INFINITY;
      let stopped: Promise<unknown> | null = null;
      w.engine.worker.addLane({ kinds: ["test.chain"], concurrency: 1, groupLimit: 1 });
      w.engine.worker.register("test.chain", async (job) => {
        ran.push({ id: job.id, attempts: job.attempts });
        if (ran.length === stopAfter) stopped = w.engine.worker.stop();
        const next = await w.engine.storage.transaction(async (tx) => {
          expect(await tx.work.complete(job.id, job.leaseOwner!)).toBe(true);
          const now = w.clock.now();
          return tx.work.takeNext({ kind: "test.chain", groups: ["g"], owner: job.leaseOwner!, now, leaseUntil: now + 30_000 });
        });
        return next[0] ? { kind: "settled", next: next[0] } : { kind: "settled" };
      });
      for (let i = 0; i < 3; i++) await schedule(w, "test.chain", { i }, 0, undefined, "g");
      const claims: number[] = [];
      const claim = w.engine.storage.claimDueWork.bind(w.engine.storage);
      w.engine.storage.claimDueWork = async (request) => {
        const got = await claim(request);
        if (request.onlyKinds?.includes("test.chain")) claims.push(got.length);
        return got;
      };
      expect(await w.engine.worker.runDue()).toBe(3); // the items handed on count
      expect(ran.map((r) => r.attempts)).toEqual([1, 1, 1]);
      expect(claims[0]).toBe(1); // one claim started the chain; the slot went on by itself
      expect((await w.harness.inspect.work()).filter((j) => j.kind === "test.chain")).toEqual([]);

      // a runner that stops mid-chain gives the lease of the item handed on back at once
      ran.length = 0;
      stopAfter = 1;
      for (let i = 0; i < 2; i++) await schedule(w, "test.chain", { i }, 0, undefined, "g");
      w.engine.worker.start();
      while (!stopped) await new Promise((r) => setTimeout(r, 5));
      await stopped;
      expect(ran).toHaveLength(1);
      const [left] = (await w.harness.inspect.work()).filter((j) => j.kind === "test.chain");
      expect(left).toMatchObject({ leaseOwner: null, leaseUntil: null, attempts: 1 });
      expect(left!.lastError).toMatch(/lease given back/);
    });

    it("hands a typed handler the parsed payload with the account and mode as fields", async () => {
      const greet = defineWork("test.typed", s.object({ name: s.string({ min: 1 }), times: s.integer({ min: 1 }) }));
      const seen: unknown[] = [];
      w.engine.worker.handle(greet, async (job) => {
        seen.push({ payload: job.payload, accountId: job.accountId, livemode: job.livemode, attempts: job.attempts });
      });
      await runCommand(engineDeps(w.engine), w.ctx, async (uow) => {
        uow.schedule(greet, { name: "ada", times: 2 });
        return ok(null);
      });
      expect(await w.engine.worker.runDue()).toBe(1);
      expect(seen).toEqual([{ payload: { name: "ada", times: 2 }, accountId: w.accountId, livemode: false, attempts: 1 }]);
      const [stored] = (await w.harness.inspect.work()).filter((j) => j.kind === "test.typed");
      expect(stored).toBeUndefined();
    });

    it("marks dead, with the reason and no retry, typed work whose payload breaks its schema", async () => {
      const strict = defineWork("test.strict", s.object({ n: s.integer() }));
      let calls = 0;
      w.engine.worker.handle(strict, async () => {
        calls++;
      });
      await schedule(w, "test.strict", { n: "one" }); // written by an older or broken writer
      await w.engine.worker.runDue();
      w.clock.advance(24 * 3_600_000);
      await w.engine.worker.runDue();
      const [job] = (await w.harness.inspect.work()).filter((j) => j.kind === "test.strict");
      expect(job).toMatchObject({ status: "dead", attempts: 1 });
      expect(job!.lastError).toContain("payload.n must be an integer");
      expect(calls).toBe(0);
    });

    it("marks dead work no handler serves, and work whose handler says it can never succeed", async () => {
      w.engine.worker.register("test.hopeless", async () => {
        throw new PermanentWorkError("no chain adapter serves nowhere on this engine");
      });
      await schedule(w, "test.hopeless", {});
      await schedule(w, "test.unknown", {});
      await w.engine.worker.runDue();
      w.clock.advance(24 * 3_600_000);
      await w.engine.worker.runDue();
      const byKind = new Map((await w.harness.inspect.work()).map((j) => [j.kind, j]));
      expect(byKind.get("test.hopeless")).toMatchObject({ status: "dead", attempts: 1, lastError: "no chain adapter serves nowhere on this engine" });
      expect(byKind.get("test.unknown")).toMatchObject({ status: "dead", attempts: 1, lastError: "no handler for work of kind test.unknown in this engine" });
    });

    it("stops within a grace: finished items settle, the lease of one still running is given back at once", async () => {
      let release!: () => void;
      const hanging = new Promise<void>((r) => (release = r));
      const started: string[] = [];
      w.engine.worker.register("test.quick", async () => undefined);
      w.engine.worker.register("test.hang", async (job) => {
        started.push(job.id);
        await hanging;
      });
      await schedule(w, "test.quick", {});
      await schedule(w, "test.hang", {});
      w.engine.worker.start();
      try {
        // the quick item may still be committing its completion when the hanging one starts
        while (started.length === 0 || w.engine.worker.status().inFlight > 1) await new Promise((r) => setTimeout(r, 5));
        expect(w.engine.worker.status()).toMatchObject({ started: true, inFlight: 1 });
        const stopped = w.engine.worker.stop({ graceMs: 5_000 });
        // the grace runs out on the engine's clock, a second at a time with a moment between: the
        // process's heartbeat (1 s, a 5 s life) renews as it goes, else a jump of 5 s could end
        // its life before the lease is given back, and the release would be refused
        for (let second = 0; second < 5; second++) {
          await new Promise((r) => setTimeout(r, 20));
          w.clock.advance(1_000);
        }
        expect(await stopped).toEqual({ released: 1 });
        expect(w.engine.worker.status().started).toBe(false);
        const left = (await w.harness.inspect.work()).filter((j) => j.kind.startsWith("test."));
        expect(left).toHaveLength(1); // the quick one finished and is gone
        expect(left[0]).toMatchObject({ id: started[0], leaseOwner: null, leaseUntil: null, runAt: w.clock.now(), attempts: 1 });
        expect(left[0]!.lastError).toMatch(/lease given back/);
        // another worker claims it at once, not when the lease would have run out
        const [again] = await w.engine.storage.claimDueWork({ now: w.clock.now(), limit: 5, leaseMs: 1000, owner: "other", onlyKinds: ["test.hang"] });
        expect(again?.id).toBe(started[0]);
      } finally {
        release(); // else closing the world would wait for it
      }
    });

    it.each(["the polling loop", "runDue alone"])(
      "stops while an item waits to try its refused settle again: the stop ends the wait, the clock need not move (%s)",
      async (how) => {
        const harness = await kind.factory();
        const faulty = new FaultyStorage(harness.storage);
        const refused: string[] = [];
        let settleRefused!: () => void;
        const waiting = new Promise<void>((r) => (settleRefused = r));
        const onError = (e: unknown, job?: { kind: string }) => {
          const unavailable = causeOf(e, StorageUnavailableError);
          if (job?.kind === "test.fill" && unavailable) {
            refused.push(unavailable.reason);
            settleRefused();
          }
        };
        const f = await testWorld(kind, { harness: { ...harness, storage: faulty }, worker: { onError } });
        try {
          await f.engine.worker.runDue(); // the engine's own housekeeping
          // its completion is refused (and every try after), while claims go on: the drain waits for it
          faulty.refuse = (call) => call === "work.complete";
          f.engine.worker.register("test.fill", async () => undefined);
          await schedule(f, "test.fill", {});
          if (how === "runDue alone") void f.engine.worker.runDue();
          else f.engine.worker.start();
          await waiting; // the settle was refused; it now waits on the manual clock to try again
          expect(refused).toEqual(["disk_full"]);
          let timer!: NodeJS.Timeout;
          const stopped = await Promise.race([
            f.engine.worker.stop().then(() => "stopped"),
            new Promise((r) => (timer = setTimeout(r, 10_000, "still waiting"))),
          ]);
          clearTimeout(timer);
          expect(stopped).toBe("stopped");
          faulty.refuse = null;
          // its completion never committed: the item is still there, to run again (at least once)
          expect((await f.harness.inspect.work()).filter((j) => j.kind === "test.fill")).toHaveLength(1);
        } finally {
          faulty.refuse = null;
          f.clock.advance(2_000); // should the item still wait (the test failed), let it settle, so the close does not wait
          await f.close();
        }
      },
    );

    it("prunes events older than 30 days and expired idempotency keys hourly", async () => {
      const funded = await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "5" });
      expect(funded.isOk()).toBe(true);
      expect(await w.harness.inspect.events(w.accountId)).toHaveLength(1);
      const begun = await w.engine.idempotency.begin(w.accountId, "key-1", "f");
      expect(begun.isOk()).toBe(true);
      w.clock.advance(30 * 24 * 3_600_000 + 3_600_000);
      await w.engine.worker.runDue();
      expect(await w.harness.inspect.events(w.accountId)).toEqual([]);
      expect(await w.harness.inspect.idempotencyKeys(w.accountId)).toEqual([]);
      const maintenance = (await w.harness.inspect.work()).filter((j) => j.kind === MAINTENANCE.kind);
      expect(maintenance).toHaveLength(1);
      expect(maintenance[0]!.runAt).toBeGreaterThan(w.clock.now());
    });
  });
}

afterAll(closeSharedStorage);

import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/clock";
import { engineDeps } from "../../src/engine/engine";
import { testWorld, type TestWorld } from "../support/engine";
import { FaultyStorage, type InjectedFault } from "../support/faulty-storage";
import { expectLedgerConsistent } from "../support/ledger-checks";
import { closeSharedStorage, storageKinds } from "../support/storage";

/** Each key funds its own amount, so the ledger tells how often a key's effect committed. */
const KEYS = 3;
const unitsOf = (k: number) => BigInt(k + 1) * 1_000_000n; // k + 1 USDC

type Step = { kind: "request"; key: number; faults: InjectedFault[] } | { kind: "advance" };

/**
 * Write sessions of a request, counted from 0: the key's claim (an autocommit insert), the
 * command's transaction, then the save or release of the key. A fault fails one of them before
 * it writes (nothing of it commits) or after it committed (its caller never hears so).
 */
const fault: fc.Arbitrary<InjectedFault> = fc.record({
  at: fc.integer({ min: 0, max: 2 }),
  mode: fc.constantFrom("before" as const, "after" as const),
  reason: fc.constantFrom("connection" as const, "disk_full" as const),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("request" as const),
      key: fc.nat(KEYS - 1),
      faults: fc.uniqueArray(fault, { maxLength: 2, selector: (f) => f.at }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "advance" as const }) },
);

/**
 * Issue 23, item 3: idempotency that tells the truth. Random sequences of requests under a few
 * keys, with storage failing some of their sessions before or after they commit: a key's saved
 * answer always matches what committed (a 200 saved exactly when its effect committed, once), no
 * answer of a failure is ever replayed, and once storage is fine every key runs to one effect.
 */
for (const kind of storageKinds()) {
  describe(`idempotency under storage faults on ${kind.name}`, () => {
    it("saves an answer only with committed effects, and never replays a failure", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
          const clock = new ManualClock();
          const harness = await kind.factory();
          const faulty = new FaultyStorage(harness.storage);
          const w: TestWorld = await testWorld(kind, { clock, harness: { ...harness, storage: faulty } });
          try {
            const fund = (key: number) =>
              w.request("POST", "/v1/test_helpers/balances/fund", {
                body: { asset: "USDC", chain: "base", amount: String(key + 1) },
                headers: { "Idempotency-Key": `key-${key}` },
              });
            const credits = async (key: number) =>
              (await w.harness.inspect.entries(w.accountId)).filter((e) => e.book === "available" && e.amount === unitsOf(key)).length;
            const check = async (key: number) => {
              const record = (await w.harness.inspect.idempotencyKeys(w.accountId)).find((r) => r.key === `key-${key}`);
              const n = await credits(key);
              expect(n).toBeLessThanOrEqual(1); // one effect per key, whatever failed
              // a saved answer is the success whose effect committed, and a committed effect has its answer saved with it
              expect(record?.response?.status ?? null).toBe(n === 1 ? 200 : null);
            };
            for (const s of steps) {
              if (s.kind === "advance") {
                clock.advance(61_000); // a key held by a request that failed after its claim is taken over
                continue;
              }
              faulty.inject(s.faults);
              const res = await fund(s.key);
              faulty.inject([]);
              expect([200, 409, 503]).toContain(res.status);
              if (res.headers.get("idempotent-replayed") === "true") expect(res.status).toBe(200);
              if (res.status === 200) expect(await credits(s.key)).toBe(1);
              if (res.status === 503) expect(res.headers.get("retry-after")).toBe("1");
              for (let k = 0; k < KEYS; k++) await check(k);
            }
            // storage fine again, and every lock run out: each key ends with exactly one effect
            clock.advance(61_000);
            for (let k = 0; k < KEYS; k++) {
              const res = await fund(k);
              expect(res.status).toBe(200);
              expect(await credits(k)).toBe(1);
              await check(k);
            }
            await expectLedgerConsistent(w.harness.inspect, w.accountId, engineDeps(w.engine).house.test);
          } finally {
            await w.close();
          }
        }),
        { numRuns: kind.name === "memory" ? 40 : 8 },
      );
    }, 120_000);
  });
}

afterAll(closeSharedStorage);

import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { engineDeps } from "../../../src/engine/engine";
import { BATCH_OPEN_SLICE, STAGED_SLICE_DELAY_MS } from "../../../src/resources/payouts/batch-acceptance";
import { testWorld } from "../../support/engine";
import { FaultyStorage, type InjectedFault } from "../../support/faulty-storage";
import { expectLedgerConsistent } from "../../support/ledger-checks";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const SOL = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

/**
 * Issue 22, item 1: a batch larger than one slice is staged, held and opened slice by slice, in
 * transactions of its own. Whatever session of that fails, before or after its commit, the batch
 * either never existed (its funds untouched, its staged items doing nothing) or, once its staged
 * items ran, exists whole: every row opened once as a payout of its own, the hold resolved, the
 * ledger consistent. A 200 always means the batch exists, and every payout exists by the time
 * the answer is given when nothing failed.
 */
const scenario = fc.record({
  legs: fc.integer({ min: 2, max: 11 }),
  slice: fc.integer({ min: 1, max: 4 }),
  approvalEvery: fc.option(fc.integer({ min: 2, max: 4 }), { nil: null }),
  fault: fc.option(
    fc.record({
      at: fc.integer({ min: 0, max: 16 }),
      mode: fc.constantFrom<InjectedFault["mode"]>("before", "after"),
      reason: fc.constant<InjectedFault["reason"]>("connection"),
    }),
    { nil: null },
  ),
});

for (const kind of storageKinds()) {
  describe(`a batch accepted in slices on ${kind.name}`, () => {
    it("exists whole or not at all, each row opened once, whatever session fails", async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async ({ legs, slice, approvalEvery, fault }) => {
          const clock = new ManualClock();
          const harness = await kind.factory();
          const faulty = new FaultyStorage(harness.storage);
          const w = await testWorld(kind, { clock, harness: { ...harness, storage: faulty }, config: { batchSlice: slice } });
          try {
            (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "1000" }))._unsafeUnwrap();
            (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "solana", amount: "1000" }))._unsafeUnwrap();
            if (approvalEvery !== null) {
              (await w.engine.accounts.setPolicy(w.accountId, { approval_threshold: { USDC: "50" } }))._unsafeUnwrap();
            }
            const recipients = [
              (await w.engine.recipients.create(w.ctx, { name: "b", chain_addresses: { base: BASE } }))._unsafeUnwrap().id,
              (await w.engine.recipients.create(w.ctx, { name: "s", chain_addresses: { solana: SOL } }))._unsafeUnwrap().id,
            ];
            const amountOf = (row: number) => (approvalEvery !== null && row % approvalEvery === 0 ? "60" : `${row + 1}.25`);
            const rows = Array.from({ length: legs }, (_, row) => ({ row, amount: amountOf(row), recipient: recipients[row % 2]!, reference: `r${row}` }));
            const before = await w.harness.inspect.balances(w.accountId);

            faulty.inject(fault ? [fault] : []);
            let answer: Awaited<ReturnType<typeof w.engine.batches.create>> | null = null;
            try {
              answer = await w.engine.batches.create(w.ctx, { funding: { asset: "USDC", source: "auto" }, legs: rows });
            } catch {
              // storage refused a session the request could not do without
            }
            faulty.inject([]);
            const payoutsNow = (await w.harness.inspect.resources(w.accountId)).filter((r) => r.kind === "payout");
            if (answer?.isOk() && !fault) expect(payoutsNow).toHaveLength(legs); // all opened by the time it answered

            // the staged items run (the request's own process died, or they find their slices open)
            clock.advance(STAGED_SLICE_DELAY_MS);
            await w.engine.worker.runDue();

            // every staged item ran once and is gone: none failed, none waits to retry
            expect((await w.harness.inspect.work()).filter((item) => item.kind === BATCH_OPEN_SLICE.kind)).toEqual([]);
            const resources = await w.harness.inspect.resources(w.accountId);
            const batches = resources.filter((r) => r.kind === "payout_batch");
            const payouts = resources.filter((r) => r.kind === "payout").map((r) => r.data as { batch: string; row: number; reference: string });
            if (answer?.isOk()) expect(batches).toHaveLength(1);
            if (batches.length === 0) {
              expect(payouts).toEqual([]);
              expect(await w.harness.inspect.balances(w.accountId)).toEqual(before);
              expect((await w.harness.inspect.reservations(w.accountId)).filter((r) => r.status === "active")).toEqual([]);
            } else {
              expect(batches).toHaveLength(1);
              const batch = batches[0]!;
              expect(payouts.map((p) => p.row).sort((a, b) => a - b)).toEqual(rows.map((r) => r.row));
              for (const p of payouts) expect(p).toMatchObject({ batch: batch.id, reference: `r${p.row}` });
              const retrieved = (await w.engine.batches.retrieve(w.ctx, batch.id))._unsafeUnwrap();
              expect(Object.values(retrieved.counts).reduce((a, b) => a + b, 0)).toBe(legs);
              if (answer?.isOk()) expect(answer.value).toEqual(retrieved);
              const reservations = await w.harness.inspect.reservations(w.accountId);
              for (const hold of reservations.filter((r) => r.resource === batch.id)) expect(hold).toMatchObject({ status: "resolved", remaining: 0n });
              const created = (await w.harness.inspect.events(w.accountId)).filter((e) => e.type === "payout.created");
              expect(created).toHaveLength(legs);
            }
            await expectLedgerConsistent(w.harness.inspect, w.accountId, engineDeps(w.engine).house.test);
          } finally {
            await w.close();
          }
        }),
        { numRuns: kind.name === "memory" ? 60 : 8 },
      );
    }, 300_000);
  });
}

afterAll(closeSharedStorage);

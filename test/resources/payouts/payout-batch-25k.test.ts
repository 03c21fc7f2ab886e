import { afterAll, describe, expect, it } from "vitest";
import { testWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * The issue's acceptance test: a 25,000-leg batch is accepted (in slices: its funds held, then
 * its payouts opened slice by slice), settles, and emits exactly one `payout.batch.completed`.
 * Settling 25,000 payouts is run on memory (the workers' logic is the same on every store); on
 * PGlite and PostgreSQL the acceptance itself is checked.
 */
const LEGS = 25_000;
const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

for (const kind of storageKinds()) {
  describe(`a 25,000-leg batch on ${kind.name}`, () => {
    it(kind.name === "memory" ? "is accepted, settles, and completes once" : "is accepted, every payout with its own reservations", async () => {
      const w = await testWorld(kind, { worker: { concurrency: 4, batchSize: 4 } });
      try {
        (await w.engine.testHelpers.fund(w.ctx, { asset: "USDC", chain: "base", amount: "100000" }))._unsafeUnwrap();
        const recipients: string[] = [];
        for (let i = 0; i < 50; i++) {
          recipients.push((await w.engine.recipients.create(w.ctx, { name: `r${i}`, chain_addresses: { base: BASE } }))._unsafeUnwrap().id);
        }
        const legs = Array.from({ length: LEGS }, (_, row) => ({ row, amount: "1.5", recipient: recipients[row % 50] }));
        // the same batch with one bad row: that row is listed, nothing is created, and dry_run agrees
        const bad = legs.map((leg) => (leg.row === 17_017 ? { ...leg, amount: "1.5000001" } : leg));
        for (const query of [{}, { dry_run: true }]) {
          const refused = await w.engine.batches.create(w.ctx, { funding: { asset: "USDC", source: "auto" }, legs: bad }, query);
          expect(refused.isErr() && refused.error.code).toBe("batch_invalid");
          expect(refused.isErr() && refused.error.errors).toEqual([
            { row: 17_017, param: "legs[17017].amount", code: "amount_invalid", message: expect.any(String) },
          ]);
        }
        expect((await w.harness.inspect.resources(w.accountId)).filter((r) => r.kind === "payout")).toEqual([]);
        const dry = (await w.engine.batches.create(w.ctx, { funding: { asset: "USDC", source: "auto" }, legs }, { dry_run: true }))._unsafeUnwrap();
        expect(dry).toEqual({ object: "payout_batch_validation", valid: true, leg_count: LEGS, total_amount: "37500" });
        const batch = (await w.engine.batches.create(w.ctx, { reference: "big", funding: { asset: "USDC", source: "auto" }, legs }, {}))._unsafeUnwrap();
        if (!("id" in batch)) throw new Error("a batch, not a validation");
        expect(batch).toMatchObject({ object: "payout_batch", leg_count: LEGS, total_amount: "37500", counts: { executing: LEGS } });
        const reserved = (await w.harness.inspect.balances(w.accountId)).find((b) => b.book === "reserved")!.amount;
        expect(reserved).toBe(BigInt(LEGS) * (1_500_000n + 10_075n)); // 0.01 fixed + 0.005 % of 1.5, rounded up
        // every payout reserved its own legs; the batch's hold moved into them slice by slice and is resolved
        const reservations = await w.harness.inspect.reservations(w.accountId);
        const holds = reservations.filter((r) => r.resource === batch.id);
        expect(holds).toMatchObject([{ status: "resolved", remaining: 0n }]);
        expect(reservations.filter((r) => r.resource !== batch.id && r.status === "active")).toHaveLength(LEGS);
        expect((await w.engine.batches.retrieve(w.ctx, batch.id))._unsafeUnwrap()).toEqual(batch);
        if (kind.name !== "memory") return;

        for (let i = 0; i < 12; i++) {
          w.clock.advance(1_000);
          await w.engine.worker.runDue();
        }
        const done = (await w.engine.batches.retrieve(w.ctx, batch.id))._unsafeUnwrap();
        expect(done).toMatchObject({ status: "completed", counts: { settled: LEGS } });
        const completed = (await w.harness.inspect.events(w.accountId)).filter((e) => e.type === "payout.batch.completed");
        expect(completed).toHaveLength(1);
        const balances = await w.harness.inspect.balances(w.accountId);
        expect(balances.find((b) => b.book === "reserved")!.amount).toBe(0n);
        expect(balances.find((b) => b.book === "available")!.amount).toBe(100_000_000_000n - reserved);
      } finally {
        await w.close();
      }
    }, 180_000); // 25,000 payouts through every step: minutes on a loaded 2-core machine
  });
}

afterAll(closeSharedStorage);

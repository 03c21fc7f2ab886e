import { groupBy } from "../../collections/group-by";
import { stepMachine } from "../../engine/machine-step";
import { batchMachine } from "./batch-machine";
import { FINAL_PAYOUT_STATUSES, type PayoutStatus } from "./payout-machine";
import type { ModuleDeps } from "../../engine/context";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { BATCHES, presentBatch } from "./batch-doc";
import type { StatusChange } from "./payout-transitions";

/**
 * Keeps each batch's `counts` in step with its payouts, in the same transaction as their
 * changes, and completes the batch (`payout.batch.completed`, once) when the last payout reaches
 * a terminal state.
 */
export class BatchCounts {
  constructor(private readonly deps: Pick<ModuleDeps, "assets">) {}

  async apply(uow: UnitOfWork, changes: readonly StatusChange[]): Promise<void> {
    const byBatch = groupBy(
      changes.filter((c) => c.batch && c.from !== c.to),
      (c) => c.batch!,
    );
    for (const [batchId, list] of [...byBatch].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const stored = await BATCHES.get(uow.tx, uow.ctx.accountId, batchId, { lock: true });
      if (!stored) throw new Error(`batch ${batchId} of a payout does not exist`);
      const counts = { ...stored.doc.counts };
      for (const { from, to } of list) {
        if (from) counts[from] = (counts[from] ?? 0) - 1;
        counts[to] = (counts[to] ?? 0) + 1;
      }
      for (const key of Object.keys(counts) as PayoutStatus[]) if (counts[key] === 0) delete counts[key];
      const final = FINAL_PAYOUT_STATUSES.reduce((n, status) => n + (counts[status] ?? 0), 0);
      const step = stepMachine(batchMachine, { value: stored.doc.status, context: {} }, { type: "counted", final, total: stored.doc.legCount });
      const doc = { ...stored.doc, counts, status: step.value };
      for (const action of step.actions) {
        switch (action.type) {
          case "emitCompleted":
            doc.completedAt = uow.now;
            uow.emit("payout.batch.completed", presentBatch(this.deps.assets, doc));
            break;
        }
      }
      await BATCHES.update(uow.tx, stored, doc, uow.now);
    }
  }
}

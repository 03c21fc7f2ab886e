import { ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import { inBackground } from "../../concurrency/priority";
import { yieldToIo } from "../../concurrency/yield";
import { carriedContext, jobContext, type ModuleDeps, type RequestContext } from "../../engine/context";
import type { UnitOfWork } from "../../engine/unit-of-work";
import type { AssetDefinition } from "../../money/assets";
import type { Metadata } from "../../metadata/metadata";
import { LedgerInvariantError } from "../../ledger/ledger";
import { s } from "../../validation/schema";
import { defineWork, PermanentWorkError, type JobHandler, type WorkKind } from "../../workers/due-work";
import { BATCHES, presentBatch, type BatchDoc, type BatchObject } from "./batch-doc";
import { PAYOUTS, type PayoutDoc } from "./payout-doc";
import type { PayoutPlan } from "./payout-planner";
import type { OpenPayout, PayoutsService } from "./payouts-service";
import type { PayoutTransitions } from "./payout-transitions";
import { startMachine } from "../../engine/machine-step";
import { batchMachine } from "./batch-machine";

/** A validated, planned row of a batch: everything opening its payout needs. */
export interface PlannedRow {
  /** The payout's id, chosen when the row is planned. */
  id: string;
  row: number;
  amount: bigint;
  recipient: string;
  reference: string | null;
  metadata: Metadata;
  requiresApproval: boolean;
  plan: PayoutPlan;
}

/** A batch being accepted in slices: the funds held for the payouts not opened yet, and the slices opened. */
export interface BatchOpening {
  /** Per chain, the reservation holding the batch's legs (amount plus fee) until their payouts reserve their own. */
  holds: Record<string, string>;
  slices: number;
  opened: number[];
}

/**
 * A sliced batch's staged items wait this long before they open their slices themselves: the
 * request opens them first, and the items take over only if its process died meanwhile. An item
 * whose batch was never accepted (the request failed or died before) does nothing.
 */
export const STAGED_SLICE_DELAY_MS = 60_000;

/** A batch is accepted only while its staged slices are this young, well before they run on their own. */
const ACCEPT_WITHIN_MS = STAGED_SLICE_DELAY_MS / 2;

const baseUnits = s.string({ min: 1, pattern: /^\d+$/ });
const stagedRow = s.object({
  id: s.string({ min: 1 }),
  row: s.integer({ min: 0 }),
  amount: baseUnits,
  recipient: s.string({ min: 1 }),
  reference: s.string({ min: 1 }).optional(),
  metadata: s.record(s.string({ min: 1 }), s.string()).optional(),
  approval: s.boolean(),
  fee: baseUnits,
  approximate: s.boolean(),
  legs: s.array(s.object({ chain: s.string({ min: 1 }), address: s.string({ min: 1 }), amount: baseUnits, fee: baseUnits }), { min: 1 }),
});

/** Opens one staged slice of a batch, unless it is open already or its batch was never accepted. */
export const BATCH_OPEN_SLICE = defineWork(
  "payouts.batch_open_slice",
  s.object({ batch: s.string({ min: 1 }), asset: s.string({ min: 1 }), slice: s.integer({ min: 0 }), rows: s.array(stagedRow, { min: 1 }) }),
);

type StagedSlice = typeof BATCH_OPEN_SLICE extends WorkKind<infer P, "account"> ? P : never;
type StagedRow = StagedSlice["rows"][number];

/** What a batch needs besides its rows. */
export interface BatchHead {
  asset: AssetDefinition;
  reference: string | null;
  metadata: Metadata;
  total: bigint;
}

/**
 * Accepts a planned batch. One that fits a slice (`EngineConfig.batchSlice`) is accepted in one
 * transaction; a larger one in slices, so a 25,000-leg batch never makes another request wait long:
 *
 * 1. **Stage**: each slice's planned rows are written as a due item (`BATCH_OPEN_SLICE`), to run
 *    only after `STAGED_SLICE_DELAY_MS`, a transaction per slice.
 * 2. **Accept**: one short transaction holds the whole batch's funds (one reservation per chain:
 *    `insufficient_funds` stays all or nothing), writes the batch with the counts its payouts
 *    start with, and saves the idempotent response. From here the batch is durable.
 * 3. **Open**: a transaction per slice moves the slice's share of the holds into its payouts' own
 *    reservations, writes the payouts (`payout.created`) and schedules their broadcasts. The
 *    batch records each slice it opened, so a slice opens once whoever opens it.
 *
 * The request answers once every slice is open. If its process dies after step 2, the staged
 * items open the remaining slices; if it dies before, they find no batch and do nothing. Staging
 * and opening run as background work on one-at-a-time storage, so requests go between them.
 */
export class BatchAcceptance {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "config" | "ids" | "storage">,
    private readonly payouts: PayoutsService,
    private readonly transitions: PayoutTransitions,
  ) {}

  /** Rows per slice (`EngineConfig.batchSlice`). */
  get sliceSize(): number {
    return this.deps.config.batchSlice ?? (this.deps.storage.capabilities.concurrentTransactions ? 2_500 : 250);
  }

  /** Accepts a planned batch: in one transaction when it fits one slice, else in slices (above). */
  accept(ctx: RequestContext, head: BatchHead, rows: readonly PlannedRow[]): Promise<Result<BatchObject, ApiError>> {
    return rows.length > this.sliceSize ? this.acceptInSlices(ctx, head, rows) : this.acceptAtOnce(ctx, head, rows);
  }

  /** Reservations, payouts, `payout.created` events and the batch in one transaction. */
  private acceptAtOnce(ctx: RequestContext, head: BatchHead, rows: readonly PlannedRow[]): Promise<Result<BatchObject, ApiError>> {
    return this.deps.storage.command(ctx, async (uow) => {
      const batchId = this.deps.ids.next("bat");
      const opened = await this.open(uow, head.asset, batchId, rows);
      if (opened.isErr()) {
        const { index, error } = opened.error;
        return fail("insufficient_funds", `Insufficient available ${head.asset.code} for this batch (row ${rows[index]!.row}): ${error.message}`);
      }
      const docs = opened.value.map((o) => o.doc);
      const counts: BatchDoc["counts"] = {};
      for (const doc of docs) counts[doc.status] = (counts[doc.status] ?? 0) + 1;
      const batch = newBatch(batchId, head, rows.length, counts, uow.now);
      await BATCHES.insert(uow.tx, ctx.accountId, uow.now, [batch]);
      await PAYOUTS.insert(uow.tx, ctx.accountId, uow.now, docs);
      this.scheduleBroadcasts(uow, docs);
      return ok(presentBatch(this.deps.assets, batch));
    });
  }

  private async acceptInSlices(ctx: RequestContext, head: BatchHead, rows: readonly PlannedRow[]): Promise<Result<BatchObject, ApiError>> {
    const batchId = this.deps.ids.next("bat");
    const slices: PlannedRow[][] = [];
    for (let i = 0; i < rows.length; i += this.sliceSize) slices.push(rows.slice(i, i + this.sliceSize));
    const carried = carriedContext(ctx);

    let stagedAt = Number.NaN;
    await inBackground(async () => {
      for (const [slice, part] of slices.entries()) {
        await yieldToIo();
        await this.deps.storage.command(carried, async (uow) => {
          if (Number.isNaN(stagedAt)) stagedAt = uow.now;
          const payload = { batch: batchId, asset: head.asset.code, slice, rows: part.map(stageRow) };
          uow.schedule(BATCH_OPEN_SLICE, payload, { runAt: stagedAt + STAGED_SLICE_DELAY_MS });
          return ok(undefined);
        });
      }
    });

    const accepted = await this.deps.storage.command(ctx, async (uow) => {
      if (uow.now - stagedAt > ACCEPT_WITHIN_MS) {
        return fail("internal_error", "The batch took too long to stage; nothing was created. Try again with the same Idempotency-Key.");
      }
      const held = heldByChain(rows);
      const chains = [...held.keys()].sort();
      const reserved = await uow.ledger.reserveMany(
        chains.map((chain) => ({ accountId: ctx.accountId, asset: head.asset, chain, amount: held.get(chain)!, resource: batchId })),
      );
      if (reserved.isErr()) {
        return fail("insufficient_funds", `Insufficient available ${head.asset.code} on ${chains[reserved.error.index]} for this batch and its network fees`);
      }
      const counts: BatchDoc["counts"] = {};
      for (const row of rows) {
        const status = this.transitions.firstStatus(row.requiresApproval);
        counts[status] = (counts[status] ?? 0) + 1;
      }
      const batch = newBatch(batchId, head, rows.length, counts, uow.now);
      batch.opening = {
        holds: Object.fromEntries(chains.map((chain, i) => [chain, reserved.value[i]!.reservation.id])),
        slices: slices.length,
        opened: [],
      };
      await BATCHES.insert(uow.tx, ctx.accountId, uow.now, [batch]);
      return ok(presentBatch(this.deps.assets, batch));
    });
    if (accepted.isErr()) return accepted;

    // The batch stands from here: a slice this request fails to open, the staged item opens.
    try {
      await inBackground(async () => {
        for (const [slice, part] of slices.entries()) {
          await yieldToIo();
          await this.openSlice(carried, batchId, head.asset, slice, part);
        }
      });
    } catch {
      // answered all the same: the staged items open what is left
    }
    return accepted;
  }

  /** Opens the payouts of `rows` in `uow` (every leg reserved in one ledger call); the caller inserts them. */
  private open(uow: UnitOfWork, asset: AssetDefinition, batchId: string, rows: readonly PlannedRow[]) {
    return this.payouts.openMany(
      uow,
      rows.map((row) => openPayout(asset, batchId, row)),
      { deferBroadcast: true },
    );
  }

  /** Schedules the broadcasts of a batch's new executing payouts, a due item per chunk (`EngineConfig.batchChunk`). */
  private scheduleBroadcasts(uow: UnitOfWork, docs: readonly PayoutDoc[]): void {
    const executing = docs.filter((d) => d.status === "executing").map((d) => d.id);
    const chunk = this.deps.config.batchChunk ?? (this.deps.storage.capabilities.concurrentTransactions ? 250 : 25);
    for (let i = 0; i < executing.length; i += chunk) this.transitions.scheduleBroadcast(uow, executing.slice(i, i + chunk));
  }

  /** Runs a staged slice: opens it unless the request (or an earlier run) did, or its batch was never accepted. */
  sliceHandler(): JobHandler<StagedSlice> {
    return async (job) => {
      const asset = this.deps.assets.get(job.payload.asset);
      if (!asset) throw new PermanentWorkError(`${BATCH_OPEN_SLICE.kind} ${job.id}: unknown asset ${job.payload.asset}`);
      await this.openSlice(jobContext(job), job.payload.batch, asset, job.payload.slice, job.payload.rows.map(unstageRow));
    };
  }

  /**
   * Opens slice `slice` of a sliced batch in one transaction; changes nothing when it was open
   * already or the batch was never accepted.
   */
  private async openSlice(ctx: RequestContext, batchId: string, asset: AssetDefinition, slice: number, rows: readonly PlannedRow[]): Promise<void> {
    await this.deps.storage.command(ctx, async (uow): Promise<Result<void, ApiError>> => {
      const seen = await BATCHES.get(uow.tx, ctx.accountId, batchId);
      if (!seen?.doc.opening || seen.doc.opening.opened.includes(slice)) return ok(undefined);
      const { holds } = seen.doc.opening;
      // the slice's share of the holds goes back to available, and its payouts reserve it at once
      const share = heldByChain(rows);
      for (const chain of [...share.keys()].sort()) {
        const hold = holds[chain];
        if (!hold) throw new LedgerInvariantError(`batch ${batchId} holds nothing on ${chain}`);
        await uow.ledger.capture(ctx.accountId, hold, share.get(chain)!, "available", { transition: `open:${slice}:${chain}` });
      }
      const made = await this.open(uow, asset, batchId, rows);
      if (made.isErr()) throw new LedgerInvariantError(`a batch's released hold did not cover slice ${slice}: ${made.error.error.message}`);
      // locked after the ledger, as every payout change locks its batch after its postings
      const stored = await BATCHES.get(uow.tx, ctx.accountId, batchId, { lock: true });
      const opening = stored?.doc.opening;
      if (!stored || !opening || opening.opened.includes(slice)) return fail("internal_error", `slice ${slice} of ${batchId} was opened meanwhile`); // rolls back
      const docs = made.value.map((m) => m.doc);
      await PAYOUTS.insert(uow.tx, ctx.accountId, uow.now, docs);
      this.scheduleBroadcasts(uow, docs);
      const doc: BatchDoc = { ...stored.doc, opening: { ...opening, opened: [...opening.opened, slice] } };
      if (doc.opening!.opened.length === opening.slices) delete doc.opening;
      await BATCHES.update(uow.tx, stored, doc, uow.now);
      return ok(undefined);
    });
  }
}

/** What rows' legs hold per chain: amount plus fee, base units. */
function heldByChain(rows: readonly PlannedRow[]): Map<string, bigint> {
  const held = new Map<string, bigint>();
  for (const row of rows) for (const leg of row.plan.legs) held.set(leg.chain, (held.get(leg.chain) ?? 0n) + leg.amount + leg.fee);
  return held;
}

/** A new batch document, `processing`, with the counts its payouts start with. */
function newBatch(id: string, head: BatchHead, legCount: number, counts: BatchDoc["counts"], now: number): BatchDoc {
  return {
    id,
    status: startMachine(batchMachine).value,
    reference: head.reference,
    funding: { asset: head.asset.code, source: "auto" },
    legCount,
    totalAmount: head.total.toString(),
    counts,
    metadata: head.metadata,
    created: now,
    completedAt: null,
  };
}

function openPayout(asset: AssetDefinition, batchId: string, row: PlannedRow): OpenPayout {
  return {
    id: row.id,
    asset,
    amount: row.amount,
    recipient: row.recipient,
    reference: row.reference,
    metadata: row.metadata,
    batch: batchId,
    row: row.row,
    routing: null,
    plan: row.plan,
    requiresApproval: row.requiresApproval,
  };
}

/** A planned row as its staged item keeps it (JSON: base units as strings). */
function stageRow(row: PlannedRow): StagedRow {
  return {
    id: row.id,
    row: row.row,
    amount: row.amount.toString(),
    recipient: row.recipient,
    ...(row.reference === null ? {} : { reference: row.reference }),
    ...(Object.keys(row.metadata).length ? { metadata: row.metadata } : {}),
    approval: row.requiresApproval,
    fee: row.plan.fee.toString(),
    approximate: row.plan.approximate,
    legs: row.plan.legs.map((leg) => ({ chain: leg.chain, address: leg.address, amount: leg.amount.toString(), fee: leg.fee.toString() })),
  };
}

function unstageRow(row: StagedRow): PlannedRow {
  return {
    id: row.id,
    row: row.row,
    amount: BigInt(row.amount),
    recipient: row.recipient,
    reference: row.reference ?? null,
    metadata: row.metadata ?? {},
    requiresApproval: row.approval,
    plan: {
      legs: row.legs.map((leg) => ({ chain: leg.chain, address: leg.address, amount: BigInt(leg.amount), fee: BigInt(leg.fee) })),
      fee: BigInt(row.fee),
      approximate: row.approximate,
    },
  };
}

import { err, ok, type Result } from "neverthrow";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { type ApiError, fail } from "../../errors";
import { type ListEnvelope, type PagedList, listPage, pagedList } from "../../lists/list-page";
import { defineEngineWork, type JobHandler } from "../../workers/due-work";
import { s } from "../../validation/schema";
import type { Reconciler } from "./reconciler";
import {
  RECONCILIATIONS,
  type ReconciliationDoc,
  type ReconciliationObject,
  type ReconciliationSummaryObject,
  presentReconciliation,
  presentSummary,
  referenceOf,
} from "./reconciliation-doc";
import {
  type AcceptReconciliationInput,
  type ListReconciliationsParams,
  type RunReconciliationInput,
  acceptReconciliationSchema,
  listReconciliationsSchema,
  runReconciliationSchema,
} from "./reconciliation-schemas";

/** One chain's reconciliation in one mode, rescheduled every `config.reconcileEveryMs` (live) or `reconcileTestEveryMs` (test). */
export const RECONCILE = defineEngineWork("reconciliations.run", s.object({ chain: s.string({ min: 1 }), livemode: s.boolean() }));

/** What `POST /v1/reconciliations/run` answers: the records made, as a list (docs/decisions.md §12), and the chains it could not compare now. */
export interface RunAnswer extends ListEnvelope<ReconciliationObject> {
  deferred: { chain: string; reason: string }[];
}

/**
 * Reconciliation records (docs/decisions.md §12, docs/reconciliation.md): engine-wide readings of each
 * chain's holdings against the books, kept under the mode's house account and shown to every
 * account of the mode (the scope `reconciliations` grants them); runs on demand and in the
 * background; a drift accepted as the operator's own joins the float.
 */
export class ReconciliationsService {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "clock" | "config" | "cursors" | "house" | "parse" | "storage">,
    private readonly reconciler: Reconciler,
  ) {}

  private houseOf(ctx: RequestContext): string {
    return this.deps.house[ctx.livemode ? "live" : "test"];
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<ReconciliationObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => RECONCILIATIONS.get(tx, this.houseOf(ctx), id));
    if (!stored) return fail("resource_missing", `No such reconciliation: ${id}`, { param: "id" });
    return ok(this.present(stored.doc));
  }

  /** Newest first; `chain`, `asset` and `status` narrow it. */
  list(ctx: RequestContext, params: ListReconciliationsParams = {}): PagedList<ReconciliationSummaryObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, input: ListReconciliationsParams): Promise<Result<ListEnvelope<ReconciliationSummaryObject>, ApiError>> {
    const parsed = listReconciliationsSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { chain, asset, status, ...params } = parsed.value;
    const house = this.houseOf(ctx);
    return listPage({
      codec: this.deps.cursors,
      accountId: house,
      list: RECONCILIATIONS.type.kind,
      params,
      ...(status !== undefined ? { status } : {}),
      extraBinding: { chain: chain?.name ?? null, asset: asset?.code ?? null },
      // `chain` (and `asset` with it) is a prefix of the reference; `asset` alone a key of the filter metadata
      fetch: (query) =>
        this.deps.storage.read((tx) =>
          tx.resources.list({
            ...query,
            kind: RECONCILIATIONS.type.kind,
            ...(chain ? { search: referenceOf(chain.name, asset?.code) } : asset ? { metadata: { key: "asset", value: asset.code } } : {}),
          }),
        ),
      position: (row) => ({ created: row.created, id: row.id }),
      present: (row) => {
        const doc = RECONCILIATIONS.read(row);
        return presentSummary(this.deps.assets.get(doc.asset)!, doc);
      },
    });
  }

  /**
   * Reconciles now (`chain`, or every chain of the mode whose adapter reports its holdings) and
   * answers the records made: every reading is kept, balanced or not. A chain it cannot compare
   * this moment (a conversion executing there) is named in `deferred`.
   */
  async run(ctx: RequestContext, input: RunReconciliationInput = {}): Promise<Result<RunAnswer, ApiError>> {
    const parsed = runReconciliationSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const chains = this.reconciler.chainsOf(ctx.livemode);
    const asked = parsed.value.chain?.name;
    if (asked !== undefined && !chains.includes(asked)) {
      return fail("chain_unsupported", `No chain adapter of this mode reports what it holds on ${asked}, so it cannot be reconciled`, { param: "chain" });
    }
    const records: ReconciliationObject[] = [];
    const deferred: { chain: string; reason: string }[] = [];
    for (const chain of asked !== undefined ? [asked] : chains) {
      const outcome = await this.reconciler.run(chain, ctx.livemode, true);
      records.push(...outcome.records.map((doc) => this.present(doc)));
      if (outcome.deferred) deferred.push({ chain, reason: outcome.deferred });
    }
    return ok({ object: "list", data: records, has_more: false, next_cursor: null, previous_cursor: null, deferred });
  }

  /**
   * The operator accepts a drift as their own: its difference joins the float
   * (docs/reconciliation.md). Only the house account's keys (the operator's, made by the host) or
   * the host itself: a tenant's key could otherwise hide money gone from the hot wallet.
   */
  async accept(ctx: RequestContext, id: string, input: AcceptReconciliationInput): Promise<Result<ReconciliationObject, ApiError>> {
    if (ctx.accountId !== this.houseOf(ctx)) {
      return fail("permission_denied", "Only the operator accepts a drift: use a key of the house account (engine.accounts.house), or the host's engine", {
        param: "id",
      });
    }
    const parsed = acceptReconciliationSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const outcome = await this.reconciler.accept(ctx.livemode, id, parsed.value.reason);
    switch (outcome) {
      case "missing":
        return fail("resource_missing", `No such reconciliation: ${id}`, { param: "id" });
      case "not_drift":
        return fail("parameter_invalid", `Reconciliation ${id} balanced: there is no difference to accept`, { param: "id" });
      case "accepted_already":
        return fail("parameter_invalid", `Reconciliation ${id} was accepted already`, { param: "id" });
      case "superseded":
        return fail("parameter_invalid", `A newer reading of this chain and asset exists: accept that one, whose difference is current`, { param: "id" });
      case "accepted":
        return this.retrieve(ctx, id);
    }
  }

  /** How often a mode's chains are read (`config.reconcileEveryMs`, `reconcileTestEveryMs`). */
  everyMs(livemode: boolean): number {
    return livemode ? this.deps.config.reconcileEveryMs : this.deps.config.reconcileTestEveryMs;
  }

  /** `reconciliations.run`: one chain of one mode, then again after its mode's interval (a chain that cannot be read is tried again sooner). */
  handler(): JobHandler<{ chain: string; livemode: boolean }, "engine"> {
    return async (job) => {
      const { chain, livemode } = job.payload;
      const every = this.everyMs(livemode);
      try {
        await this.reconciler.run(chain, livemode, false);
      } catch (e) {
        return { kind: "retry", at: this.deps.clock.now() + Math.min(every, 60_000), error: e instanceof Error ? e.message : String(e) };
      }
      return { kind: "reschedule", at: this.deps.clock.now() + every };
    };
  }

  private present(doc: ReconciliationDoc): ReconciliationObject {
    return presentReconciliation(this.deps.assets.get(doc.asset)!, doc);
  }
}

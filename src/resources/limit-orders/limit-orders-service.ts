import { err, ok, type Result } from "neverthrow";
import { AdapterError, ApiError, expectOk, fail } from "../../errors";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import {
  limitOrderMachine,
  type CancellationReason,
  type LimitOrderAnnouncement,
  type LimitOrderEvent,
  type LimitOrderStatus,
} from "./limit-order-machine";
import { canStep, startMachine, stepMachine, type ActionOf } from "../../engine/machine-step";
import { matchStep, respectsTerms, type OrderTerms } from "../../matching/fill-step";
import type { AssetDefinition } from "../../money/assets";
import { parseAmount } from "../../money/amount";
import { divCeil } from "../../money/rounding";
import { priceImpact } from "../../quoting/order-pricer";
import { fromPricingRecord, toPricingRecord } from "../../quoting/pricing-record";
import { baseUnitRate, formatFraction, parseFraction, parseSlippage } from "../../quoting/quote-metrics";
import type { Ratio } from "../../quoting/venue-curves";
import { s } from "../../validation/schema";
import { defineWork, type Job } from "../../workers/due-work";
import type { WorkOutcome } from "../../workers/runner";
import { jobContext, type ModuleDeps, type RequestContext } from "../../engine/context";
import {
  delivered,
  distinctAssets,
  executePricing,
  platformFeeBps,
  pricerNow,
  releaseReservations,
  settleConversion,
  stillReserved,
} from "../conversion";
import { type Stored } from "../../engine/doc-store";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { haltedVenues } from "../test-helpers/venue-halts";
import { type CreateLimitOrderInput, EXPIRES_IN, type ListLimitOrdersParams, createLimitOrderSchema, listLimitOrdersSchema } from "./limit-order-schemas";
import { type FillDoc, LIMIT_ORDERS, type LimitOrderDoc, type LimitOrderObject, type PendingFill, presentLimitOrder } from "./limit-order-doc";

const orderId = s.object({ order: s.string({ min: 1 }) });
/** One matching step of an open order; it reschedules itself while the order is open. */
export const LIMIT_ORDER_MATCH = defineWork("limit_order.match", orderId);
/** At `expires_at` + 1 ms: cancels what is still open. */
export const LIMIT_ORDER_EXPIRE = defineWork("limit_order.expire", orderId);


/** Whether an order is still open: its machine takes a cancel (working or partially filled). */
function isOpen(doc: LimitOrderDoc): boolean {
  return canStep(limitOrderMachine, { value: doc.status, context: { partialFills: doc.partialFills } }, { type: "cancel", reason: "requested" });
}

/**
 * `POST/GET/DELETE /v1/limit_orders` and the due work that matches and expires them
 * (DECISIONS.md §4, research §5). Placement reserves the input (it stays in the balance as
 * `reserved`, not escrowed); a recurring `limit_order.match` job looks at the venues every
 * `limitOrderMatchIntervalMs` and fills what qualifies; `limit_order.expire` runs just after
 * `expires_at`. Cancel and expiry release what is still reserved at once; fills stay.
 */
export class LimitOrdersService {
  constructor(private readonly deps: ModuleDeps) {}

  async create(ctx: RequestContext, input: CreateLimitOrderInput): Promise<Result<LimitOrderObject, ApiError>> {
    const parsed = createLimitOrderSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const p = parsed.value;
    const from = p.from.asset;
    const to = p.to.asset;
    const distinct = distinctAssets(from, to);
    if (distinct.isErr()) return err(distinct.error);
    const amount = parseAmount(p.from.amount, from, "from.amount");
    if (amount.isErr()) return err(amount.error);
    const target = parseFraction(p.target_rate, "target_rate");
    if (target.isErr()) return err(target.error);
    if (target.value.num === 0n) return fail("parameter_invalid", "target_rate must be greater than zero", { param: "target_rate" });
    if (p.max_slippage !== undefined) {
      const slippage = parseSlippage(p.max_slippage, "max_slippage");
      if (slippage.isErr()) return err(slippage.error);
    }
    if (p.destination_chain) {
      const chain = this.deps.assets.chainFor(to, p.destination_chain.name, "destination_chain");
      if (chain.isErr()) return err(chain.error);
    }
    const expiresIn = p.expires_in ?? EXPIRES_IN.default;
    const partialFills = p.partial_fills ?? true;

    return this.deps.storage.command(ctx, async (uow) => {
      const id = this.deps.ids.next("lo");
      const reserved = await uow.ledger.reserveAcrossChains({ accountId: ctx.accountId, asset: from, amount: amount.value, resource: id });
      if (reserved.isErr()) return err(reserved.error);
      const main = reserved.value[0]!.chain;
      const chain = p.destination_chain?.name ?? (to.chains.includes(main) ? main : to.chains[0]!);
      const expiresAt = uow.now + expiresIn * 1000;
      const start = startMachine(limitOrderMachine, { partialFills });
      const doc: LimitOrderDoc = {
        id,
        status: start.value,
        cancellationReason: null,
        from: from.code,
        to: to.code,
        destinationChain: chain,
        amount: amount.value.toString(),
        targetRate: p.target_rate,
        partialFills,
        maxSlippage: p.max_slippage ?? null,
        filledIn: "0",
        filledOut: "0",
        reserved: amount.value.toString(),
        fills: [],
        reservations: reserved.value.map((r) => ({ id: r.id, chain: r.chain, amount: r.amount.toString() })),
        pending: null,
        expiresAt,
        created: uow.now,
      };
      await LIMIT_ORDERS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      await this.carryOut(uow, ctx.accountId, doc, start.actions);
      return ok(this.present(doc));
    });
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<LimitOrderObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => LIMIT_ORDERS.get(tx, ctx.accountId, id));
    return stored ? ok(this.present(stored.doc)) : missing(id);
  }

  list(ctx: RequestContext, params: ListLimitOrdersParams = {}): PagedList<LimitOrderObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, input: ListLimitOrdersParams): Promise<Result<ListEnvelope<LimitOrderObject>, ApiError>> {
    const parsed = listLimitOrdersSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    return LIMIT_ORDERS.list(this.deps, ctx, parsed.value, (doc) => this.present(doc));
  }

  /** `DELETE /v1/limit_orders/{id}`: releases the reservation at once; fills stay. */
  cancel(ctx: RequestContext, id: string): Promise<Result<LimitOrderObject, ApiError>> {
    return this.deps.storage.command(ctx, async (uow) => {
      const stored = await LIMIT_ORDERS.get(uow.tx, ctx.accountId, id, { lock: true });
      if (!stored) return missing(id);
      if (!isOpen(stored.doc)) {
        return fail("limit_order_not_cancelable", `Limit order ${id} is ${stored.doc.status} and cannot be canceled`, { param: "id" });
      }
      return ok(this.present(await this.cancelWithin(uow, ctx.accountId, stored, "requested")));
    });
  }

  /** Due work `limit_order.expire`, at `expires_at` + 1 ms: cancels what is still open. */
  async expireDue(job: Job<{ order: string }>): Promise<WorkOutcome | void> {
    const { order: id } = job.payload;
    const accountId = job.accountId;
    // the transaction says when to look again (its order is not due yet), or null
    const done = await this.deps.storage.command(jobContext(job), async (uow) => {
      const stored = await LIMIT_ORDERS.get(uow.tx, accountId, id, { lock: true });
      if (!stored || !isOpen(stored.doc)) return ok(null);
      if (uow.now <= stored.doc.expiresAt) return ok(stored.doc.expiresAt + 1);
      await this.cancelWithin(uow, accountId, stored, "expired");
      return ok(null);
    });
    if (done.isErr()) throw done.error;
    if (done.value !== null) return { kind: "reschedule", at: done.value };
  }

  /**
   * Due work `limit_order.match`: one matching step (research §5.2). A fill is decided on the
   * venues' snapshots outside any transaction, recorded as pending with its id (so a crash
   * repeats the same execution, which the venue answers from its first call), executed, then
   * applied in one transaction that checks the funds again. Reschedules itself while open.
   */
  async matchDue(job: Job<{ order: string }>): Promise<WorkOutcome | void> {
    const { order: id } = job.payload;
    const accountId = job.accountId;
    const stored = await this.deps.storage.read((tx) => LIMIT_ORDERS.get(tx, accountId, id));
    if (!stored || !isOpen(stored.doc)) return;
    const next = (): WorkOutcome => ({ kind: "reschedule", at: this.deps.clock.now() + this.deps.config.limitOrderMatchIntervalMs });
    const ctx = jobContext(job);
    // Halted venues (test mode, DECISIONS.md §10) execute nothing: the order waits for the others.
    const halted = await haltedVenues(this.deps, accountId, job.livemode);
    if (stored.doc.pending) {
      if (!fromPricingRecord(stored.doc.pending.pricing).legs.some((leg) => halted(leg.venue))) {
        await this.completeFill(ctx, id, stored.doc.pending);
      }
      return next();
    }
    const doc = stored.doc;
    const now = this.deps.clock.now();
    if (now > doc.expiresAt) return; // the expiry job cancels it
    const from = this.deps.assets.get(doc.from)!;
    const to = this.deps.assets.get(doc.to)!;
    // A venue that is down or offers nothing is no reason to stop watching: look again later.
    const pricer = await pricerNow(this.deps, from, to, (venue) => !halted(venue)).catch((e: unknown) => {
      if (e instanceof AdapterError) return null;
      throw e;
    });
    if (!pricer || pricer.isErr()) return next();
    const decision = matchStep(this.terms(doc, from, to), pricer.value.pricer, now);
    if (decision.kind !== "fill") return decision.kind === "expired" ? undefined : next();

    const pending: PendingFill = {
      id: this.deps.ids.next("fil"),
      pricing: toPricingRecord(decision.pricing, pricer.value.pricedAt),
      decidedAt: now,
    };
    const recorded = await this.deps.storage.command(ctx, async (uow) => {
      const locked = await LIMIT_ORDERS.get(uow.tx, accountId, id, { lock: true });
      // Changed since the decision (a cancel, another step): decide again on the next run.
      if (!locked || locked.record.version !== stored.record.version || uow.now > doc.expiresAt) return ok(false);
      await LIMIT_ORDERS.update(uow.tx, locked, { ...locked.doc, pending }, uow.now);
      return ok(true);
    });
    if (recorded.isErr()) throw recorded.error;
    if (recorded.value) await this.completeFill(ctx, id, pending);
    return next();
  }

  /** Executes a pending fill on the venues, then applies it (or drops it) in one transaction. */
  private async completeFill(ctx: RequestContext, id: string, pending: PendingFill): Promise<void> {
    const { accountId } = ctx;
    const probe = await this.deps.storage.read((tx) => LIMIT_ORDERS.get(tx, accountId, id));
    if (!probe) return;
    const pricing = fromPricingRecord(pending.pricing);
    const result = await executePricing(this.deps, pending.id, probe.doc.from, probe.doc.to, pricing);
    const applied = await this.deps.storage.command(ctx, async (uow) => {
      const stored = await LIMIT_ORDERS.get(uow.tx, accountId, id, { lock: true });
      if (!stored || !isOpen(stored.doc) || stored.doc.pending?.id !== pending.id) return ok(undefined);
      const doc: LimitOrderDoc = { ...stored.doc, pending: null };
      const from = this.deps.assets.get(doc.from)!;
      const to = this.deps.assets.get(doc.to)!;
      const a = pricing.amountIn;
      const reserved = await stillReserved(uow, accountId, doc.reservations);
      // Dropped, nothing moves for the customer: refused by the venues, decided too late, or
      // the funds no longer there (what the reservations hold, re-read under their locks).
      if (result.status !== "executed" || uow.now > doc.expiresAt || reserved < a) {
        await LIMIT_ORDERS.update(uow.tx, stored, doc, uow.now);
        return ok(undefined);
      }
      // The customer gets what the venues actually delivered (never less than priced), less fees.
      const gross = delivered(result);
      const platformFee = divCeil(gross * platformFeeBps(this.deps, from, to), 10_000n);
      const netOut = gross - pricing.networkFee - platformFee;
      const terms = this.terms(doc, from, to);
      if (!respectsTerms({ amountIn: a, grossOut: gross, netOut, bestRate: pricing.bestRate }, terms)) {
        await LIMIT_ORDERS.update(uow.tx, stored, doc, uow.now);
        return ok(undefined);
      }
      const settled = await settleConversion(uow, {
        accountId,
        resource: doc.id,
        step: pending.id,
        held: doc.reservations,
        amountIn: a,
        final: false,
        to,
        chain: doc.destinationChain,
        delivered: gross,
        netOut,
        networkFee: pricing.networkFee,
      });
      if (settled.isErr()) return settled;
      const filledIn = BigInt(doc.filledIn) + a;
      const filledOut = BigInt(doc.filledOut) + netOut;
      const complete = filledIn === BigInt(doc.amount);
      const step = stepMachine(limitOrderMachine, { value: doc.status, context: { partialFills: doc.partialFills } }, {
        type: "fill",
        complete,
      } satisfies LimitOrderEvent);
      if (!step.handled) throw new Error(`limit order ${id}: a fill the order does not allow`);
      const fill: FillDoc = {
        id: pending.id,
        amountIn: a.toString(),
        netOut: netOut.toString(),
        networkFee: pricing.networkFee.toString(),
        platformFee: platformFee.toString(),
        priceImpact: formatFraction(priceImpact({ amountIn: a, grossOut: gross, bestRate: pricing.bestRate })),
        created: pending.decidedAt,
      };
      const next: LimitOrderDoc = {
        ...doc,
        status: step.value,
        filledIn: filledIn.toString(),
        filledOut: filledOut.toString(),
        reserved: (reserved - a).toString(),
        fills: [...doc.fills, fill],
      };
      await LIMIT_ORDERS.update(uow.tx, stored, next, uow.now);
      await this.carryOut(uow, accountId, next, step.actions);
      return ok(undefined);
    });
    if (applied.isErr()) throw applied.error;
  }

  /** Cancels an open order read under lock in this transaction: releases, announces. */
  private async cancelWithin(
    uow: UnitOfWork,
    accountId: string,
    stored: Stored<LimitOrderDoc>,
    reason: CancellationReason,
  ): Promise<LimitOrderDoc> {
    const doc = stored.doc;
    const step = stepMachine(limitOrderMachine, { value: doc.status, context: { partialFills: doc.partialFills } }, {
      type: "cancel",
      reason,
    } satisfies LimitOrderEvent);
    const next: LimitOrderDoc = {
      ...doc,
      status: step.value,
      cancellationReason: reason,
      // A fill decided but not applied is dropped: the customer's side never moves for it.
      pending: null,
      reserved: "0",
    };
    await LIMIT_ORDERS.update(uow.tx, stored, next, uow.now);
    await this.carryOut(uow, accountId, next, step.actions);
    return next;
  }

  /** Carries out the machine's actions in this transaction. */
  private async carryOut(uow: UnitOfWork, accountId: string, doc: LimitOrderDoc, actions: ActionOf<typeof limitOrderMachine>[]): Promise<void> {
    const announce: LimitOrderAnnouncement[] = [];
    for (const action of actions) {
      switch (action.type) {
        case "watch": {
          const payload = { order: doc.id };
          uow.schedule(LIMIT_ORDER_MATCH, payload, { accountId, dedupeKey: `${LIMIT_ORDER_MATCH.kind}:${doc.id}` });
          uow.schedule(LIMIT_ORDER_EXPIRE, payload, {
            accountId,
            runAt: doc.expiresAt + 1,
            dedupeKey: `${LIMIT_ORDER_EXPIRE.kind}:${doc.id}`,
          });
          break;
        }
        case "release":
          await releaseReservations(uow, accountId, doc.reservations);
          break;
        case "announce":
          announce.push(action.params.type);
          break;
      }
    }
    for (const type of announce) uow.emit(type, this.present(doc), accountId);
  }

  private present(doc: LimitOrderDoc): LimitOrderObject {
    return presentLimitOrder(this.deps.assets, doc);
  }

  /** The order's terms in base units, for the matching step. */
  private terms(doc: LimitOrderDoc, from: AssetDefinition, to: AssetDefinition): OrderTerms {
    const target = expectOk(parseFraction(doc.targetRate, "target_rate"), "a stored target rate parses");
    const slippage: Ratio | null =
      doc.maxSlippage === null ? null : expectOk(parseFraction(doc.maxSlippage, "max_slippage"), "a stored max_slippage parses");
    return {
      remaining: BigInt(doc.amount) - BigInt(doc.filledIn),
      reserved: BigInt(doc.reserved),
      partialFills: doc.partialFills,
      target: baseUnitRate(target, from, to),
      maxSlippage: slippage,
      expiresAt: doc.expiresAt,
    };
  }
}

function missing(id: string): Result<never, ApiError> {
  return fail("resource_missing", `No such limit order: ${id}`, { param: "id" });
}

import { ok } from "neverthrow";
import { AdapterError, expectOk } from "../../errors";
import { jobContext, type ModuleDeps, type RequestContext } from "../../engine/context";
import { stepMachine } from "../../engine/machine-step";
import { matchStep, respectsTerms, type OrderTerms } from "../../matching/fill-step";
import type { AssetDefinition } from "../../money/assets";
import { divCeil } from "../../money/rounding";
import { priceImpact } from "../../quoting/order-pricer";
import { fromPricingRecord, toPricingRecord } from "../../quoting/pricing-record";
import { baseUnitRate, formatFraction, parseFraction } from "../../quoting/quote-metrics";
import type { Ratio } from "../../quoting/venue-curves";
import type { Job } from "../../workers/due-work";
import type { WorkOutcome } from "../../workers/runner";
import { delivered, executePricing, executedOnChain, executionDocs, platformFeeBps, pricerNow, settleConversion, stillReserved } from "../conversion";
import { haltedVenues } from "../test-helpers/venue-halts";
import { type FillDoc, LIMIT_ORDERS, type LimitOrderDoc, type PendingFill } from "./limit-order-doc";
import { limitOrderMachine, type LimitOrderEvent } from "./limit-order-machine";
import { isOpen, type LimitOrderTransitions } from "./limit-order-transitions";

/**
 * The matching of open orders (research §5.2), as due work `limit_order.match`: a fill is decided
 * on the venues' snapshots outside any transaction, recorded as pending with its id, executed,
 * then applied in one transaction that checks the funds and the terms again.
 */
export class LimitOrderMatching {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "clock" | "config" | "ids" | "storage" | "venues">,
    private readonly transitions: LimitOrderTransitions,
  ) {}

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
    // Halted venues (test mode, docs/decisions.md §10) execute nothing: the order waits for the others.
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
    const pricer = await pricerNow(this.deps, job.livemode, from, to, (venue) => !halted(venue)).catch((e: unknown) => {
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
    const result = await executePricing(this.deps, ctx.livemode, pending.id, probe.doc.from, probe.doc.to, pricing);
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
        onChain: executedOnChain(result),
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
        executions: executionDocs(result),
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
      await this.transitions.carryOut(uow, accountId, next, step.actions);
      return ok(undefined);
    });
    if (applied.isErr()) throw applied.error;
  }

  /** The order's terms in base units, for the matching step. */
  private terms(doc: LimitOrderDoc, from: AssetDefinition, to: AssetDefinition): OrderTerms {
    const target = expectOk(parseFraction(doc.targetRate, "target_rate"), "a stored target rate parses");
    const slippage: Ratio | null = doc.maxSlippage === null ? null : expectOk(parseFraction(doc.maxSlippage, "max_slippage"), "a stored max_slippage parses");
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

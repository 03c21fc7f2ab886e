import { err, ok, type Result } from "neverthrow";
import { AdapterError, ApiError, fail } from "../errors";
import { listParamsShape } from "../lists/list-params";
import type { ListEnvelope } from "../lists/list-page";
import {
  limitOrderMachine,
  type CancellationReason,
  type LimitOrderAnnouncement,
  type LimitOrderEvent,
  type LimitOrderStatus,
} from "../machines/limit-order-machine";
import { startMachine, stepMachine, type MachineAction } from "../machines/machine-step";
import { matchStep, respectsTerms, type OrderTerms } from "../matching/fill-step";
import type { AssetDefinition } from "../money/assets";
import { formatAmount, parseAmount } from "../money/amount";
import { divCeil } from "../money/rounding";
import type { DueWorkRecord } from "../ports/storage";
import { priceImpact } from "../quoting/order-pricer";
import { fromPricingRecord, toPricingRecord, type PricingRecord } from "../quoting/pricing-record";
import { baseUnitRate, formatFraction, formatRate, parseFraction, parseSlippage } from "../quoting/quote-metrics";
import type { Ratio } from "../quoting/venue-curves";
import { s, type Infer } from "../validation/schema";
import { isoTime } from "../validation/timestamp";
import type { WorkOutcome } from "../workers/runner";
import { runCommand } from "./command";
import { systemContext, type EngineDeps, type RequestContext } from "./context";
import {
  delivered,
  distinctAssets,
  executePricing,
  platformFeeBps,
  pricerNow,
  releaseReservations,
  settleConversion,
  stillReserved,
  type HeldReservation,
} from "./conversion";
import { ResourceStore, type Stored } from "./resource-store";
import type { UnitOfWork } from "./unit-of-work";

export const LIMIT_ORDER_MATCH_KIND = "limit_order.match";
export const LIMIT_ORDER_EXPIRE_KIND = "limit_order.expire";

/** DECISIONS.md §4: 60 s to 30 days; a day when not given (docs/decisions.md). */
export const EXPIRES_IN = { min: 60, max: 2_592_000, default: 86_400 } as const;

export const createLimitOrderSchema = s.object({
  from: s.object({ asset: s.asset(), amount: s.amount().describe("Amount of `from.asset` to sell") }),
  to: s.object({ asset: s.asset() }),
  target_rate: s.decimal().describe("Least `to` per `from` (whole units) accepted after all fees, > 0"),
  expires_in: s
    .integer({ min: EXPIRES_IN.min, max: EXPIRES_IN.max })
    .optional()
    .describe("Seconds until the order expires, 60 to 2,592,000, default 86,400"),
  partial_fills: s.boolean().optional().describe("true (default) fills in tranches; false is all-or-nothing"),
  max_slippage: s.decimal().optional().describe("Largest price impact of one fill, a fraction such as 0.01"),
  destination_chain: s
    .chain()
    .optional()
    .describe("Chain the output is credited on; default the chain most of the input comes from, if the output lives there"),
});

export const LIMIT_ORDER_STATUSES = ["working", "partially_filled", "filled", "canceled"] as const satisfies readonly LimitOrderStatus[];

export const listLimitOrdersSchema = s.object({
  ...listParamsShape,
  status: s.enum(LIMIT_ORDER_STATUSES).optional().describe("Only orders in this status"),
});

export type CreateLimitOrderInput = Infer<typeof createLimitOrderSchema>;

export interface FillObject {
  id: string;
  from_amount: string;
  to_amount: string;
  /** to_amount per from_amount, never below the order's target_rate. */
  rate: string;
  price_impact: string;
  network_fee: string;
  platform_fee: string;
  created: string;
}

/** The limit order object of DECISIONS.md §4, plus `destination_chain` and per-fill fees. */
export interface LimitOrderObject {
  id: string;
  object: "limit_order";
  status: LimitOrderStatus;
  cancellation_reason: CancellationReason | null;
  from: { asset: string; amount: string };
  to: { asset: string };
  destination_chain: string;
  target_rate: string;
  partial_fills: boolean;
  max_slippage: string | null;
  filled: { from_amount: string; to_amount: string };
  /** What the order still holds reserved, in `from.asset`. */
  reserved_amount: string;
  fills: FillObject[];
  expires_at: string;
  created: string;
}

/** A fill decided and sent to the venues, not yet applied (it survives a crash in between). */
interface PendingFill {
  id: string;
  pricing: PricingRecord;
  decided_at: number;
}

export interface LimitOrderDoc extends LimitOrderObject {
  internal: {
    reservations: HeldReservation[];
    pending: PendingFill | null;
    livemode: boolean;
    expires_at_ms: number;
    amount: string;
    filled_in: string;
    filled_out: string;
    reserved: string;
  };
}

export const LIMIT_ORDERS = new ResourceStore<LimitOrderDoc>({ kind: "limit_order", status: (d) => d.status, reference: () => null });

/** The API object, fields in their documented order (jsonb storage does not keep key order). */
export function presentLimitOrder(o: LimitOrderDoc): LimitOrderObject {
  return {
    id: o.id,
    object: "limit_order",
    status: o.status,
    cancellation_reason: o.cancellation_reason,
    from: { asset: o.from.asset, amount: o.from.amount },
    to: { asset: o.to.asset },
    destination_chain: o.destination_chain,
    target_rate: o.target_rate,
    partial_fills: o.partial_fills,
    max_slippage: o.max_slippage,
    filled: { from_amount: o.filled.from_amount, to_amount: o.filled.to_amount },
    reserved_amount: o.reserved_amount,
    fills: o.fills.map((f) => ({
      id: f.id,
      from_amount: f.from_amount,
      to_amount: f.to_amount,
      rate: f.rate,
      price_impact: f.price_impact,
      network_fee: f.network_fee,
      platform_fee: f.platform_fee,
      created: f.created,
    })),
    expires_at: o.expires_at,
    created: o.created,
  };
}

function isOpen(doc: LimitOrderDoc): boolean {
  return doc.status === "working" || doc.status === "partially_filled";
}

/**
 * `POST/GET/DELETE /v1/limit_orders` and the due work that matches and expires them
 * (DECISIONS.md §4, research §5). Placement reserves the input (it stays in the balance as
 * `reserved`, not escrowed); a recurring `limit_order.match` job looks at the venues every
 * `limitOrderMatchIntervalMs` and fills what qualifies; `limit_order.expire` runs just after
 * `expires_at`. Cancel and expiry release what is still reserved at once; fills stay.
 */
export class LimitOrdersService {
  constructor(private readonly deps: EngineDeps) {}

  async create(ctx: RequestContext, input: unknown): Promise<Result<LimitOrderObject, ApiError>> {
    const parsed = createLimitOrderSchema.parse(input, "", { assets: this.deps.assets });
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

    return runCommand(this.deps, ctx, async (uow) => {
      const id = this.deps.ids.next("lo");
      const reserved = await uow.ledger.reserveAcrossChains({ accountId: ctx.accountId, asset: from, amount: amount.value, resource: id });
      if (reserved.isErr()) return err(reserved.error);
      const main = reserved.value[0]!.chain;
      const chain = p.destination_chain?.name ?? (to.chains.includes(main) ? main : to.chains[0]!);
      const expiresAt = uow.now + expiresIn * 1000;
      const start = startMachine(limitOrderMachine, { partialFills });
      const doc: LimitOrderDoc = {
        id,
        object: "limit_order",
        status: start.value as LimitOrderStatus,
        cancellation_reason: null,
        from: { asset: from.code, amount: formatAmount(amount.value, from) },
        to: { asset: to.code },
        destination_chain: chain,
        target_rate: p.target_rate,
        partial_fills: partialFills,
        max_slippage: p.max_slippage ?? null,
        filled: { from_amount: "0", to_amount: "0" },
        reserved_amount: formatAmount(amount.value, from),
        fills: [],
        expires_at: isoTime(expiresAt),
        created: isoTime(uow.now),
        internal: {
          reservations: reserved.value.map((r) => ({ id: r.id, chain: r.chain, amount: r.amount.toString() })),
          pending: null,
          livemode: ctx.livemode,
          expires_at_ms: expiresAt,
          amount: amount.value.toString(),
          filled_in: "0",
          filled_out: "0",
          reserved: amount.value.toString(),
        },
      };
      await LIMIT_ORDERS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      await this.carryOut(uow, ctx.accountId, doc, start.actions);
      return ok(presentLimitOrder(doc));
    });
  }

  async get(ctx: RequestContext, id: string): Promise<Result<LimitOrderObject, ApiError>> {
    const stored = await this.deps.storage.transaction((tx) => LIMIT_ORDERS.get(tx, ctx.accountId, id));
    return stored ? ok(presentLimitOrder(stored.doc)) : missing(id);
  }

  async list(ctx: RequestContext, input: unknown): Promise<Result<ListEnvelope<LimitOrderObject>, ApiError>> {
    const parsed = listLimitOrdersSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    return LIMIT_ORDERS.list(this.deps, ctx, parsed.value, presentLimitOrder);
  }

  /** `DELETE /v1/limit_orders/{id}`: releases the reservation at once; fills stay. */
  cancel(ctx: RequestContext, id: string): Promise<Result<LimitOrderObject, ApiError>> {
    return runCommand(this.deps, ctx, async (uow) => {
      const stored = await LIMIT_ORDERS.get(uow.tx, ctx.accountId, id, { lock: true });
      if (!stored) return missing(id);
      if (!isOpen(stored.doc)) {
        return fail("limit_order_not_cancelable", `Limit order ${id} is ${stored.doc.status} and cannot be canceled`, { param: "id" });
      }
      return ok(presentLimitOrder(await this.cancelWithin(uow, ctx.accountId, stored, "requested")));
    });
  }

  /** Due work `limit_order.expire`, at `expires_at` + 1 ms: cancels what is still open. */
  async expireDue(job: DueWorkRecord): Promise<WorkOutcome | void> {
    const { order: id, livemode } = job.payload as { order: string; livemode: boolean };
    const accountId = job.accountId!;
    let later: number | null = null;
    const done = await runCommand(this.deps, systemContext(accountId, livemode), async (uow) => {
      const stored = await LIMIT_ORDERS.get(uow.tx, accountId, id, { lock: true });
      if (!stored || !isOpen(stored.doc)) return ok(undefined);
      if (uow.now <= stored.doc.internal.expires_at_ms) {
        later = stored.doc.internal.expires_at_ms + 1;
        return ok(undefined);
      }
      await this.cancelWithin(uow, accountId, stored, "expired");
      return ok(undefined);
    });
    if (done.isErr()) throw done.error;
    if (later !== null) return { kind: "reschedule", at: later };
  }

  /**
   * Due work `limit_order.match`: one matching step (research §5.2). A fill is decided on the
   * venues' snapshots outside any transaction, recorded as pending with its id (so a crash
   * repeats the same execution, which the venue answers from its first call), executed, then
   * applied in one transaction that checks the funds again. Reschedules itself while open.
   */
  async matchDue(job: DueWorkRecord): Promise<WorkOutcome | void> {
    const { order: id } = job.payload as { order: string };
    const accountId = job.accountId!;
    const stored = await this.deps.storage.transaction((tx) => LIMIT_ORDERS.get(tx, accountId, id));
    if (!stored || !isOpen(stored.doc)) return;
    const next = (): WorkOutcome => ({ kind: "reschedule", at: this.deps.clock.now() + this.deps.config.limitOrderMatchIntervalMs });
    if (stored.doc.internal.pending) {
      await this.completeFill(accountId, id, stored.doc.internal.pending);
      return next();
    }
    const doc = stored.doc;
    const now = this.deps.clock.now();
    if (now > doc.internal.expires_at_ms) return; // the expiry job cancels it
    const from = this.deps.assets.get(doc.from.asset)!;
    const to = this.deps.assets.get(doc.to.asset)!;
    // A venue that is down or offers nothing is no reason to stop watching: look again later.
    const pricer = await pricerNow(this.deps, from, to).catch((e: unknown) => {
      if (e instanceof AdapterError) return null;
      throw e;
    });
    if (!pricer || pricer.isErr()) return next();
    const decision = matchStep(this.terms(doc, from, to), pricer.value.pricer, now);
    if (decision.kind !== "fill") return decision.kind === "expired" ? undefined : next();

    const pending: PendingFill = {
      id: this.deps.ids.next("fil"),
      pricing: toPricingRecord(decision.pricing, pricer.value.pricedAt),
      decided_at: now,
    };
    const recorded = await runCommand(this.deps, systemContext(accountId, doc.internal.livemode), async (uow) => {
      const locked = await LIMIT_ORDERS.get(uow.tx, accountId, id, { lock: true });
      // Changed since the decision (a cancel, another step): decide again on the next run.
      if (!locked || locked.record.version !== stored.record.version || uow.now > doc.internal.expires_at_ms) return ok(false);
      await LIMIT_ORDERS.update(uow.tx, locked, { ...locked.doc, internal: { ...locked.doc.internal, pending } }, uow.now);
      return ok(true);
    });
    if (recorded.isErr()) throw recorded.error;
    if (recorded.value) await this.completeFill(accountId, id, pending);
    return next();
  }

  /** Executes a pending fill on the venues, then applies it (or drops it) in one transaction. */
  private async completeFill(accountId: string, id: string, pending: PendingFill): Promise<void> {
    const probe = await this.deps.storage.transaction((tx) => LIMIT_ORDERS.get(tx, accountId, id));
    if (!probe) return;
    const pricing = fromPricingRecord(pending.pricing);
    const result = await executePricing(this.deps, pending.id, probe.doc.from.asset, probe.doc.to.asset, pricing);
    const applied = await runCommand(this.deps, systemContext(accountId, probe.doc.internal.livemode), async (uow) => {
      const stored = await LIMIT_ORDERS.get(uow.tx, accountId, id, { lock: true });
      if (!stored || !isOpen(stored.doc) || stored.doc.internal.pending?.id !== pending.id) return ok(undefined);
      const doc: LimitOrderDoc = { ...stored.doc, internal: { ...stored.doc.internal, pending: null } };
      const from = this.deps.assets.get(doc.from.asset)!;
      const to = this.deps.assets.get(doc.to.asset)!;
      const a = pricing.amountIn;
      const reserved = await stillReserved(uow, accountId, doc.internal.reservations);
      // Dropped, nothing moves for the customer: refused by the venues, decided too late, or
      // the funds no longer there (what the reservations hold, re-read under their locks).
      if (result.status !== "executed" || uow.now > doc.internal.expires_at_ms || reserved < a) {
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
        held: doc.internal.reservations,
        amountIn: a,
        final: false,
        to,
        chain: doc.destination_chain,
        delivered: gross,
        netOut,
        networkFee: pricing.networkFee,
      });
      if (settled.isErr()) return settled;
      const filledIn = BigInt(doc.internal.filled_in) + a;
      const filledOut = BigInt(doc.internal.filled_out) + netOut;
      const complete = filledIn === BigInt(doc.internal.amount);
      const step = stepMachine(limitOrderMachine, { value: doc.status, context: { partialFills: doc.partial_fills } }, {
        type: "fill",
        complete,
      } satisfies LimitOrderEvent);
      if (!step.handled) throw new Error(`limit order ${id}: a fill the order does not allow`);
      const fill = {
        id: pending.id,
        from_amount: formatAmount(a, from),
        to_amount: formatAmount(netOut, to),
        rate: formatRate(netOut, a, from, to),
        price_impact: formatFraction(priceImpact({ amountIn: a, grossOut: gross, bestRate: pricing.bestRate })),
        network_fee: formatAmount(pricing.networkFee, to),
        platform_fee: formatAmount(platformFee, to),
        created: isoTime(pending.decided_at),
      };
      const left = reserved - a;
      const next: LimitOrderDoc = {
        ...doc,
        status: step.value as LimitOrderStatus,
        filled: { from_amount: formatAmount(filledIn, from), to_amount: formatAmount(filledOut, to) },
        reserved_amount: formatAmount(left, from),
        fills: [...doc.fills, fill],
        internal: { ...doc.internal, filled_in: filledIn.toString(), filled_out: filledOut.toString(), reserved: left.toString() },
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
    const step = stepMachine(limitOrderMachine, { value: doc.status, context: { partialFills: doc.partial_fills } }, {
      type: "cancel",
      reason,
    } satisfies LimitOrderEvent);
    const from = this.deps.assets.get(doc.from.asset)!;
    const next: LimitOrderDoc = {
      ...doc,
      status: step.value as LimitOrderStatus,
      cancellation_reason: reason,
      reserved_amount: formatAmount(0n, from),
      // A fill decided but not applied is dropped: the customer's side never moves for it.
      internal: { ...doc.internal, pending: null, reserved: "0" },
    };
    await LIMIT_ORDERS.update(uow.tx, stored, next, uow.now);
    await this.carryOut(uow, accountId, next, step.actions);
    return next;
  }

  /** Carries out the machine's actions in this transaction. */
  private async carryOut(uow: UnitOfWork, accountId: string, doc: LimitOrderDoc, actions: MachineAction[]): Promise<void> {
    const announce: LimitOrderAnnouncement[] = [];
    for (const action of actions) {
      if (action.type === "watch") {
        const payload = { order: doc.id, livemode: doc.internal.livemode };
        uow.schedule(LIMIT_ORDER_MATCH_KIND, payload, { accountId, dedupeKey: `${LIMIT_ORDER_MATCH_KIND}:${doc.id}` });
        uow.schedule(
          LIMIT_ORDER_EXPIRE_KIND,
          payload,
          { accountId, runAt: doc.internal.expires_at_ms + 1, dedupeKey: `${LIMIT_ORDER_EXPIRE_KIND}:${doc.id}` },
        );
      } else if (action.type === "release") {
        await releaseReservations(uow, accountId, doc.internal.reservations);
      } else if (action.type === "announce") {
        announce.push((action.params as { type: LimitOrderAnnouncement }).type);
      }
    }
    for (const type of announce) uow.emit(type, presentLimitOrder(doc), accountId);
  }

  /** The order's terms in base units, for the matching step. */
  private terms(doc: LimitOrderDoc, from: AssetDefinition, to: AssetDefinition): OrderTerms {
    const target = parseFraction(doc.target_rate, "target_rate")._unsafeUnwrap();
    const slippage: Ratio | null = doc.max_slippage === null ? null : parseFraction(doc.max_slippage, "max_slippage")._unsafeUnwrap();
    return {
      remaining: BigInt(doc.internal.amount) - BigInt(doc.internal.filled_in),
      reserved: BigInt(doc.internal.reserved),
      partialFills: doc.partial_fills,
      target: baseUnitRate(target, from, to),
      maxSlippage: slippage,
      expiresAt: doc.internal.expires_at_ms,
    };
  }
}

function missing(id: string): Result<never, ApiError> {
  return fail("resource_missing", `No such limit order: ${id}`, { param: "id" });
}

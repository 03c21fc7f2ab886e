import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../errors";
import { listParamsShape } from "../lists/list-params";
import type { ListEnvelope } from "../lists/list-page";
import { swapMachine, type SwapAnnouncement, type SwapEvent, type SwapStatus } from "../machines/swap-machine";
import { startMachine, stepMachine, type MachineAction } from "../machines/machine-step";
import type { AssetDefinition } from "../money/assets";
import { formatAmount } from "../money/amount";
import type { DueWorkRecord } from "../ports/storage";
import type { VenueExecutionResult } from "../ports/venue";
import { fromPricingRecord, toPricingRecord, type PricingRecord, type StoredPricing } from "../quoting/pricing-record";
import { formatRate, parseSlippage } from "../quoting/quote-metrics";
import type { Ratio } from "../quoting/venue-curves";
import { s, type Infer } from "../validation/schema";
import { isoTime } from "../validation/timestamp";
import { runCommand } from "./command";
import { systemContext, type EngineDeps, type RequestContext } from "./context";
import { delivered, executePricing, priceNow, releaseReservations, settleConversion, type HeldReservation } from "./conversion";
import { QUOTES } from "./quotes";
import { ResourceStore } from "./resource-store";
import type { UnitOfWork } from "./unit-of-work";

export const SWAP_EXECUTE_KIND = "swap.execute";

export const createSwapSchema = s.object({
  quote: s.string({ min: 1, max: 64 }).describe("The quote id (qt_…) this swap consumes"),
  destination_chain: s.chain().describe("Chain the output asset is credited on"),
  refresh: s
    .object({ max_slippage: s.decimal().describe("Largest fall of the rate accepted, a fraction such as 0.005") })
    .optional()
    .describe("Re-quote an expired quote and execute if the new rate is within max_slippage of the old"),
});

export const SWAP_STATUSES = ["executing", "settled", "failed"] as const satisfies readonly SwapStatus[];

export const listSwapsSchema = s.object({
  ...listParamsShape,
  status: s.enum(SWAP_STATUSES).optional().describe("Only swaps in this status"),
});

export type CreateSwapInput = Infer<typeof createSwapSchema>;

/** The swap object of the seed and DECISIONS.md §4, plus `refreshed`. */
export interface SwapObject {
  id: string;
  object: "swap";
  status: SwapStatus;
  quote: string;
  from: { asset: string; amount: string };
  to: { asset: string; amount: string };
  destination_chain: string;
  /** The quote's rate, or the refreshed quote's when `refreshed`. */
  executed_rate: string;
  refreshed: boolean;
  /** `venue_rejected` when failed, else null. */
  failure_code: string | null;
  created: string;
  settled: string | null;
}

export interface SwapDoc extends SwapObject {
  internal: {
    pricing: PricingRecord;
    reservations: HeldReservation[];
    livemode: boolean;
    /** Why the venues refused, when failed. */
    failure_reason: string | null;
  };
}

export const SWAPS = new ResourceStore<SwapDoc>({ kind: "swap", status: (d) => d.status, reference: () => null });

/** The API object, fields in their documented order (jsonb storage does not keep key order). */
export function presentSwap(s: SwapDoc): SwapObject {
  return {
    id: s.id,
    object: "swap",
    status: s.status,
    quote: s.quote,
    from: { asset: s.from.asset, amount: s.from.amount },
    to: { asset: s.to.asset, amount: s.to.amount },
    destination_chain: s.destination_chain,
    executed_rate: s.executed_rate,
    refreshed: s.refreshed,
    failure_code: s.failure_code,
    created: s.created,
    settled: s.settled,
  };
}

/**
 * `POST /v1/swaps` and its execution (DECISIONS.md §4). Create consumes the quote, reserves the
 * input and schedules the venue call; the worker executes the quote's legs (idempotent by the
 * swap id, outside any transaction) and then settles or fails the swap in one transaction.
 */
export class SwapsService {
  constructor(private readonly deps: EngineDeps) {}

  async create(ctx: RequestContext, input: unknown): Promise<Result<SwapObject, ApiError>> {
    const parsed = createSwapSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const { quote: quoteId, destination_chain, refresh } = parsed.value;
    let maxSlippage: Ratio | null = null;
    if (refresh) {
      const parsedSlippage = parseSlippage(refresh.max_slippage, "refresh.max_slippage");
      if (parsedSlippage.isErr()) return err(parsedSlippage.error);
      maxSlippage = parsedSlippage.value;
    }
    const found = await this.deps.storage.transaction((tx) => QUOTES.get(tx, ctx.accountId, quoteId));
    if (!found) return fail("resource_missing", `No such quote: ${quoteId}`, { param: "quote" });
    const quote = found.doc;
    const from = this.deps.assets.asset(quote.from.asset, "quote");
    if (from.isErr()) return err(from.error);
    const to = this.deps.assets.asset(quote.to.asset, "quote");
    if (to.isErr()) return err(to.error);
    const chain = this.deps.assets.chainFor(to.value, destination_chain.name, "destination_chain");
    if (chain.isErr()) return err(chain.error);
    if (quote.internal.swap) return alreadyUsed(quote.id);

    // An expired quote with refresh: re-quote now, outside the transaction (venues are I/O).
    let refreshed: StoredPricing | null = null;
    if (this.deps.clock.now() > quote.internal.expires_at_ms) {
      if (!maxSlippage) return expired(quote.id);
      const again = await this.refresh(quote.internal.pricing, from.value, to.value, maxSlippage);
      if (again.isErr()) return err(again.error);
      refreshed = again.value;
    }

    return runCommand(this.deps, ctx, async (uow) => {
      const locked = await QUOTES.get(uow.tx, ctx.accountId, quoteId, { lock: true });
      if (!locked) return fail("resource_missing", `No such quote: ${quoteId}`, { param: "quote" });
      if (locked.doc.internal.swap) return alreadyUsed(quoteId);
      if (!refreshed && uow.now > locked.doc.internal.expires_at_ms) return expired(quoteId);
      const pricing = refreshed ?? fromPricingRecord(locked.doc.internal.pricing);
      const id = this.deps.ids.next("sw");
      const reserved = await uow.ledger.reserveAcrossChains({
        accountId: ctx.accountId,
        asset: from.value,
        amount: pricing.amountIn,
        resource: id,
      });
      if (reserved.isErr()) return err(reserved.error);
      const start = startMachine(swapMachine);
      const doc: SwapDoc = {
        id,
        object: "swap",
        status: start.value as SwapStatus,
        quote: quoteId,
        from: { asset: from.value.code, amount: formatAmount(pricing.amountIn, from.value) },
        to: { asset: to.value.code, amount: formatAmount(pricing.netOut, to.value) },
        destination_chain: chain.value.name,
        executed_rate: formatRate(pricing.netOut, pricing.amountIn, from.value, to.value),
        refreshed: refreshed !== null,
        failure_code: null,
        created: isoTime(uow.now),
        settled: null,
        internal: {
          pricing: toPricingRecord(pricing, pricing.pricedAt),
          reservations: reserved.value.map((r) => ({ id: r.id, chain: r.chain, amount: r.amount.toString() })),
          livemode: ctx.livemode,
          failure_reason: null,
        },
      };
      await SWAPS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      await QUOTES.update(uow.tx, locked, { ...locked.doc, internal: { ...locked.doc.internal, swap: id } }, uow.now);
      await this.carryOut(uow, ctx.accountId, doc, start.actions, to.value);
      return ok(presentSwap(doc));
    });
  }

  async get(ctx: RequestContext, id: string): Promise<Result<SwapObject, ApiError>> {
    const stored = await this.deps.storage.transaction((tx) => SWAPS.get(tx, ctx.accountId, id));
    return stored ? ok(presentSwap(stored.doc)) : fail("resource_missing", `No such swap: ${id}`, { param: "id" });
  }

  async list(ctx: RequestContext, input: unknown): Promise<Result<ListEnvelope<SwapObject>, ApiError>> {
    const parsed = listSwapsSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    return SWAPS.list(this.deps, ctx, parsed.value, presentSwap);
  }

  /**
   * Due work `swap.execute`: calls the venues with the stored legs (idempotent by the swap id,
   * so a retry after a crash executes nothing twice), then settles or fails the swap. A transient
   * venue error is retried for as long as it lasts (capped backoff): it says nothing about
   * whether the legs executed, so concluding "rejected" and returning the funds could hand back
   * money a venue already took. Only the venue's own answer fails a swap.
   */
  async executeDue(job: DueWorkRecord): Promise<void> {
    const { swap: id } = job.payload as { swap: string };
    const accountId = job.accountId!;
    const stored = await this.deps.storage.transaction((tx) => SWAPS.get(tx, accountId, id));
    if (!stored || stored.doc.status !== "executing") return;
    const doc = stored.doc;
    const result: VenueExecutionResult = await executePricing(
      this.deps,
      doc.id,
      doc.from.asset,
      doc.to.asset,
      fromPricingRecord(doc.internal.pricing),
    );
    const code = result.status === "rejected" ? "venue_rejected" : null;
    const ctx = systemContext(accountId, doc.internal.livemode);
    const applied = await runCommand(this.deps, ctx, async (uow) => {
      const locked = await SWAPS.get(uow.tx, accountId, id, { lock: true });
      if (!locked || locked.doc.status !== "executing") return ok(undefined);
      const event: SwapEvent = result.status === "executed" ? { type: "executed" } : { type: "rejected", code: code! };
      const step = stepMachine(swapMachine, { value: locked.doc.status, context: {} }, event);
      const next: SwapDoc = {
        ...locked.doc,
        status: step.value as SwapStatus,
        settled: step.value === "settled" ? isoTime(uow.now) : null,
        failure_code: code,
        internal: { ...locked.doc.internal, failure_reason: result.status === "rejected" ? result.reason : null },
      };
      const to = this.deps.assets.get(next.to.asset)!;
      const settled = await this.carryOut(uow, accountId, next, step.actions, to, result);
      if (settled.isErr()) return err(settled.error);
      await SWAPS.update(uow.tx, locked, next, uow.now);
      return ok(undefined);
    });
    if (applied.isErr()) throw applied.error;
  }

  /** Re-prices an expired quote's amount now; `quote_expired` unless within `maxSlippage`. */
  private async refresh(
    old: PricingRecord,
    from: AssetDefinition,
    to: AssetDefinition,
    maxSlippage: Ratio,
  ): Promise<Result<StoredPricing, ApiError>> {
    const again = await priceNow(this.deps, from, to, BigInt(old.amount_in));
    if (again.isErr()) {
      return fail("quote_expired", `The quote expired and could not be refreshed: ${again.error.message}`, { param: "quote" });
    }
    // Same input, so comparing rates is comparing outputs: new ≥ old·(1 − max_slippage).
    const oldNet = BigInt(old.net_out);
    if (again.value.netOut * maxSlippage.den < oldNet * (maxSlippage.den - maxSlippage.num)) {
      return fail("quote_expired", "The quote expired and the current rate moved beyond refresh.max_slippage", {
        param: "quote",
      });
    }
    return ok(again.value);
  }

  /** Carries out the machine's actions in this transaction. */
  private async carryOut(
    uow: UnitOfWork,
    accountId: string,
    doc: SwapDoc,
    actions: MachineAction[],
    to: AssetDefinition,
    result?: VenueExecutionResult,
  ): Promise<Result<void, ApiError>> {
    const announce: SwapAnnouncement[] = [];
    for (const action of actions) {
      if (action.type === "execute") {
        uow.schedule(SWAP_EXECUTE_KIND, { swap: doc.id }, { accountId, dedupeKey: `${SWAP_EXECUTE_KIND}:${doc.id}` });
      } else if (action.type === "settle") {
        if (result?.status !== "executed") throw new Error("settle without an execution");
        const pricing = fromPricingRecord(doc.internal.pricing);
        const posted = await settleConversion(uow, {
          accountId,
          resource: doc.id,
          held: doc.internal.reservations,
          amountIn: pricing.amountIn,
          final: true,
          to,
          chain: doc.destination_chain,
          delivered: delivered(result),
          netOut: pricing.netOut,
          networkFee: pricing.networkFee,
        });
        if (posted.isErr()) return posted;
      } else if (action.type === "refund") {
        await releaseReservations(uow, accountId, doc.internal.reservations);
      } else if (action.type === "announce") {
        announce.push((action.params as { type: SwapAnnouncement }).type);
      }
    }
    for (const type of announce) uow.emit(type, presentSwap(doc), accountId);
    return ok(undefined);
  }
}

function alreadyUsed(id: string): Result<never, ApiError> {
  return fail("quote_already_used", `Quote ${id} has already been used by a swap`, { param: "quote" });
}

function expired(id: string): Result<never, ApiError> {
  return fail("quote_expired", `Quote ${id} has expired; request a new quote`, { param: "quote" });
}

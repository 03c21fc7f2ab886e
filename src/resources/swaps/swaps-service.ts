import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import { swapMachine, type SwapAnnouncement, type SwapEvent } from "./swap-machine";
import { canStep, startMachine, stepMachine, type ActionOf } from "../../engine/machine-step";
import type { AssetDefinition } from "../../money/assets";
import { defineWork, type Job } from "../../workers/due-work";
import type { PlacedExecution } from "../../quoting/venue-set";
import { fromPricingRecord, toPricingRecord, type PricingRecord, type StoredPricing } from "../../quoting/pricing-record";
import { parseSlippage } from "../../quoting/quote-metrics";
import type { Ratio } from "../../quoting/venue-curves";
import { s } from "../../validation/schema";
import { type ModuleDeps, type RequestContext, jobContext } from "../../engine/context";
import { haltedVenues } from "../test-helpers/venue-halts";
import { delivered, executePricing, executedOnChain, executionDocs, priceNow, releaseReservations, settleConversion, venueChain } from "../conversion";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { type CreateSwapInput, type ListSwapsParams, type RetrieveSwapParams, createSwapSchema, listSwapsSchema, retrieveSwapSchema } from "./swap-schemas";
import { SWAPS, type SwapDoc, type SwapObject, presentSwap, toCredit } from "./swap-doc";
import { QUOTES, presentQuote } from "../quotes/quote-doc";
import { docField, expandObjects, itemPaths, type Expandable } from "../../lists/expansion";
import { newMetadata } from "../../metadata/metadata";

/** What `expand[]` replaces in a swap: its quote. */
const SWAP_EXPANDABLE: Expandable = { fields: { quote: docField("quote", QUOTES, (doc, deps) => presentQuote(deps.assets, doc)) } };

/** Executes a swap's legs at its venues and settles or fails it. */
export const SWAP_EXECUTE = defineWork("swap.execute", s.object({ swap: s.string({ min: 1 }) }));

/**
 * `POST /v1/swaps` and its execution (docs/decisions.md §4). Create consumes the quote, reserves the
 * input and schedules the venue call; the worker executes the quote's legs (idempotent by the
 * swap id, outside any transaction) and then settles or fails the swap in one transaction.
 */
export class SwapsService {
  constructor(private readonly deps: Pick<ModuleDeps, "assets" | "clock" | "config" | "cursors" | "ids" | "parse" | "storage" | "venues">) {}

  async create(ctx: RequestContext, input: CreateSwapInput): Promise<Result<SwapObject, ApiError>> {
    const parsed = createSwapSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { quote: quoteId, destination_chain, refresh } = parsed.value;
    let maxSlippage: Ratio | null = null;
    if (refresh) {
      const parsedSlippage = parseSlippage(refresh.max_slippage, "refresh.max_slippage");
      if (parsedSlippage.isErr()) return err(parsedSlippage.error);
      maxSlippage = parsedSlippage.value;
    }
    const found = await this.deps.storage.read((tx) => QUOTES.get(tx, ctx.accountId, quoteId));
    if (!found) return fail("resource_missing", `No such quote: ${quoteId}`, { param: "quote" });
    const quote = found.doc;
    const from = this.deps.assets.asset(quote.from, "quote");
    if (from.isErr()) return err(from.error);
    const to = this.deps.assets.asset(quote.to, "quote");
    if (to.isErr()) return err(to.error);
    const chain = this.deps.assets.chainFor(to.value, destination_chain.name, "destination_chain");
    if (chain.isErr()) return err(chain.error);
    if (quote.swap) return alreadyUsed(quote.id);

    // An expired quote with refresh: re-quote now, outside the transaction (venues are I/O).
    let refreshed: StoredPricing | null = null;
    if (this.deps.clock.now() > quote.expiresAt) {
      if (!maxSlippage) return expired(quote.id);
      const again = await this.refresh(ctx.livemode, quote.pricing, from.value, to.value, maxSlippage);
      if (again.isErr()) return err(again.error);
      refreshed = again.value;
    }

    // On-chain venues take the input on their chain and deliver there: no swap into another chain
    // until a bridge exists (docs/quotes.md).
    const legs = (refreshed ?? fromPricingRecord(quote.pricing)).legs.map((l) => l.venue);
    const onChain = await venueChain(this.deps, ctx.livemode, quote.from, quote.to, legs, chain.value.name);
    if (onChain.isErr()) return err(onChain.error);

    return this.deps.storage.command(ctx, async (uow) => {
      const locked = await QUOTES.get(uow.tx, ctx.accountId, quoteId, { lock: true });
      if (!locked) return fail("resource_missing", `No such quote: ${quoteId}`, { param: "quote" });
      if (locked.doc.swap) return alreadyUsed(quoteId);
      if (!refreshed && uow.now > locked.doc.expiresAt) return expired(quoteId);
      const pricing = refreshed ?? fromPricingRecord(locked.doc.pricing);
      const id = this.deps.ids.next("sw");
      const request = { accountId: ctx.accountId, asset: from.value, amount: pricing.amountIn, resource: id };
      const reserved = onChain.value
        ? (await uow.ledger.reserve({ ...request, chain: onChain.value })).map((r) => [r])
        : await uow.ledger.reserveAcrossChains(request);
      if (reserved.isErr()) return err(reserved.error);
      const start = startMachine(swapMachine);
      const doc: SwapDoc = {
        id,
        status: start.value,
        quote: quoteId,
        from: from.value.code,
        to: to.value.code,
        destinationChain: chain.value.name,
        pricing: toPricingRecord(pricing, pricing.pricedAt),
        refreshed: refreshed !== null,
        reservations: reserved.value.map((r) => ({ id: r.id, chain: r.chain, amount: r.amount.toString() })),
        failureCode: null,
        failureReason: null,
        metadata: newMetadata(parsed.value.metadata),
        created: uow.now,
        settledAt: null,
      };
      await SWAPS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      await QUOTES.update(uow.tx, locked, { ...locked.doc, swap: id }, uow.now);
      await this.carryOut(uow, ctx.accountId, doc, start.actions, to.value);
      return ok(presentSwap(this.deps.assets, doc));
    });
  }

  async retrieve(ctx: RequestContext, id: string, params: RetrieveSwapParams = {}): Promise<Result<SwapObject, ApiError>> {
    const parsed = retrieveSwapSchema.parse(params, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const stored = await this.deps.storage.read((tx) => SWAPS.get(tx, ctx.accountId, id));
    if (!stored) return fail("resource_missing", `No such swap: ${id}`, { param: "id" });
    const swap = presentSwap(this.deps.assets, stored.doc);
    await expandObjects(this.deps, ctx.accountId, SWAP_EXPANDABLE, [swap], parsed.value.expand ?? []);
    return ok(swap);
  }

  list(ctx: RequestContext, params: ListSwapsParams = {}): PagedList<SwapObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, input: ListSwapsParams): Promise<Result<ListEnvelope<SwapObject>, ApiError>> {
    const parsed = listSwapsSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { expand, ...params } = parsed.value;
    const paths = itemPaths(expand);
    const page = await SWAPS.list(this.deps, ctx, params, (doc) => presentSwap(this.deps.assets, doc), paths.length ? { expand: paths } : undefined);
    if (page.isOk()) await expandObjects(this.deps, ctx.accountId, SWAP_EXPANDABLE, page.value.data, paths);
    return page;
  }

  /**
   * Due work `swap.execute`: calls the venues with the stored legs (idempotent by the swap id,
   * so a retry after a crash executes nothing twice), then settles or fails the swap. A transient
   * venue error is retried for as long as it lasts (capped backoff): it says nothing about
   * whether the legs executed, so concluding "rejected" and returning the funds could hand back
   * money a venue already took. Only the venue's own answer fails a swap.
   */
  async executeDue(job: Job<{ swap: string }>): Promise<void> {
    const { swap: id } = job.payload;
    const accountId = job.accountId;
    const stored = await this.deps.storage.read((tx) => SWAPS.get(tx, accountId, id));
    if (!stored || !executable(stored.doc)) return;
    const doc = stored.doc;
    const pricing = fromPricingRecord(doc.pricing);
    // A venue halted for this test-mode account (docs/decisions.md §10) refuses, as a halted venue would.
    const halted = await haltedVenues(this.deps, accountId, job.livemode);
    const stopped = pricing.legs.find((leg) => halted(leg.venue));
    const result: PlacedExecution = stopped
      ? { status: "rejected", reason: `venue ${stopped.venue} is halted (test mode)` }
      : await executePricing(this.deps, job.livemode, doc.id, doc.from, doc.to, pricing);
    const code = result.status === "rejected" ? "venue_rejected" : null;
    const applied = await this.deps.storage.command(jobContext(job), async (uow) => {
      const locked = await SWAPS.get(uow.tx, accountId, id, { lock: true });
      if (!locked || !executable(locked.doc)) return ok(undefined);
      const event: SwapEvent = result.status === "executed" ? { type: "executed" } : { type: "rejected", code: code! };
      const step = stepMachine(swapMachine, { value: locked.doc.status, context: {} }, event);
      const next: SwapDoc = {
        ...locked.doc,
        status: step.value,
        failureCode: code,
        failureReason: result.status === "rejected" ? result.reason : null,
      };
      const to = this.deps.assets.get(next.to)!;
      const settled = await this.carryOut(uow, accountId, next, step.actions, to, result);
      if (settled.isErr()) return err(settled.error);
      await SWAPS.update(uow.tx, locked, next, uow.now);
      return ok(undefined);
    });
    if (applied.isErr()) throw applied.error;
  }

  /** Re-prices an expired quote's amount now; `quote_expired` unless within `maxSlippage`. */
  private async refresh(
    livemode: boolean,
    old: PricingRecord,
    from: AssetDefinition,
    to: AssetDefinition,
    maxSlippage: Ratio,
  ): Promise<Result<StoredPricing, ApiError>> {
    const again = await priceNow(this.deps, livemode, from, to, BigInt(old.amount_in));
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
    actions: ActionOf<typeof swapMachine>[],
    to: AssetDefinition,
    result?: PlacedExecution,
  ): Promise<Result<void, ApiError>> {
    const announce: SwapAnnouncement[] = [];
    for (const action of actions) {
      switch (action.type) {
        case "execute":
          uow.schedule(SWAP_EXECUTE, { swap: doc.id }, { accountId, dedupeKey: `${SWAP_EXECUTE.kind}:${doc.id}` });
          break;
        case "settle": {
          if (result?.status !== "executed") throw new Error("settle without an execution");
          doc.settledAt = uow.now;
          doc.delivered = delivered(result).toString();
          doc.executions = executionDocs(result);
          doc.credited = toCredit(doc, delivered(result)).toString();
          const pricing = fromPricingRecord(doc.pricing);
          const posted = await settleConversion(uow, {
            accountId,
            onChain: executedOnChain(result),
            resource: doc.id,
            step: "settle",
            held: doc.reservations,
            amountIn: pricing.amountIn,
            final: true,
            to,
            chain: doc.destinationChain,
            delivered: delivered(result),
            // the quote's amount (a firm price: what a pool gave beyond it is the house's); a refreshed
            // quote's customer gets what the venues delivered less the quoted fees (the seed's executed_rate)
            netOut: BigInt(doc.credited),
            networkFee: pricing.networkFee,
          });
          if (posted.isErr()) return posted;
          break;
        }
        case "refund":
          await releaseReservations(uow, accountId, doc.reservations);
          break;
        case "announce":
          announce.push(action.params.type);
          break;
      }
    }
    for (const type of announce) uow.emit(type, presentSwap(this.deps.assets, doc), accountId);
    return ok(undefined);
  }
}

/** Whether a swap still waits for its venues' answer (its machine takes one). */
function executable(doc: SwapDoc): boolean {
  return canStep(swapMachine, { value: doc.status, context: {} }, { type: "executed" });
}

function alreadyUsed(id: string): Result<never, ApiError> {
  return fail("quote_already_used", `Quote ${id} has already been used by a swap`, { param: "quote" });
}

function expired(id: string): Result<never, ApiError> {
  return fail("quote_expired", `Quote ${id} has expired; request a new quote`, { param: "quote" });
}

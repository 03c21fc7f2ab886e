import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import { expandObjects, itemPaths } from "../../lists/expansion";
import { PAYMENT_INTENT_EXPANDABLE } from "./payment-intent-expansions";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import { Decimal, isDecimalString } from "../../money/decimal";
import { parseAmount } from "../../money/amount";
import { s } from "../../validation/schema";
import { defineWork, type JobHandler } from "../../workers/due-work";
import { jobContext, type ModuleDeps, type RequestContext } from "../../engine/context";
import type { ChainWatchers } from "./chain-watchers";
import type { DepositIngestion } from "./deposit-ingestion";
import { PAYMENT_INTENTS, presentPaymentIntent, type PaymentIntentDoc, type PaymentIntentObject } from "./payment-intent-doc";
import {
  type CreatePaymentIntentInput,
  DEFAULT_EXPIRES_IN,
  type ListPaymentIntentsParams,
  type RetrievePaymentIntentParams,
  createPaymentIntentSchema,
  listPaymentIntentsSchema,
  retrievePaymentIntentSchema,
  type UpdatePaymentIntentInput,
  updatePaymentIntentSchema,
} from "./payment-intent-schemas";
import { startMachine } from "../../engine/machine-step";
import { paymentIntentMachine } from "./payment-intent-machine";
import { newMetadata } from "../../metadata/metadata";
import { updateMetadataOf } from "../../metadata/metadata-update";

/** At `expires_at`: the intent expires unless paid or paying. */
export const PAYMENT_INTENT_EXPIRE = defineWork("payment_intents.expire", s.object({ intent: s.string({ min: 1 }) }));

/**
 * Payment intents (docs/decisions.md §4): an amount to receive, per-chain deposit addresses from the
 * chain port, deposits watched until final (`chain-watchers.ts`, `deposit-ingestion.ts`).
 */
export class PaymentIntentsService {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "chains" | "cursors" | "ids" | "parse" | "storage">,
    private readonly ingestion: DepositIngestion,
    /** The chain watchers deposits come in through (test helpers poll them at once). */
    readonly watchers: ChainWatchers,
  ) {}

  async create(ctx: RequestContext, input: CreatePaymentIntentInput): Promise<Result<PaymentIntentObject, ApiError>> {
    const parsed = createPaymentIntentSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { asset, reference } = parsed.value;
    const amount = parseAmount(parsed.value.amount, asset, "amount");
    if (amount.isErr()) return err(amount.error);
    const tolerance = parsed.value.tolerance ?? "0";
    if (!isDecimalString(tolerance) || !new Decimal(tolerance).lt("1") || tolerance.length > 20) {
      return fail("parameter_invalid", 'tolerance must be a fraction from "0" to below "1", such as "0.01"', { param: "tolerance" });
    }
    const chains = parsed.value.chains ?? asset.chains.filter((c) => this.deps.chains.for(c, ctx.livemode));
    for (const [i, chain] of chains.entries()) {
      const known = this.deps.assets.chainFor(asset, chain, `chains[${i}]`);
      if (known.isErr()) return err(known.error);
      if (!this.deps.chains.for(chain, ctx.livemode)) {
        return fail("chain_unsupported", `No chain adapter receives on ${chain} in this mode`, { param: `chains[${i}]` });
      }
    }
    if (new Set(chains).size !== chains.length) return fail("parameter_invalid", "chains lists a chain twice", { param: "chains" });
    if (chains.length === 0) return fail("chain_unsupported", `No chain receives ${asset.code} in this mode`, { param: "chains" });

    const id = this.deps.ids.next("pi");
    const depositAddresses: Record<string, string> = {};
    for (const chain of chains) depositAddresses[chain] = await this.deps.chains.required(chain, ctx.livemode).depositAddress(chain, asset.code, id);
    // the payer may fall short by at most amount × tolerance, rounded down: the minimum rounds up
    const allowance = BigInt(new Decimal(amount.value.toString()).times(tolerance).round(0, Decimal.roundDown).toFixed());

    return this.deps.storage.command(ctx, async (uow) => {
      const doc: PaymentIntentDoc = {
        id,
        status: startMachine(paymentIntentMachine).value,
        asset: asset.code,
        amount: amount.value.toString(),
        minimum: (amount.value - allowance).toString(),
        tolerance,
        chains,
        reference: reference ?? null,
        depositAddresses,
        settlements: [],
        ledgerEntries: [],
        expiresAt: uow.now + (parsed.value.expires_in ?? DEFAULT_EXPIRES_IN) * 1000,
        metadata: newMetadata(parsed.value.metadata),
        created: uow.now,
      };
      await PAYMENT_INTENTS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      await uow.tx.depositAddresses.insert(
        chains.map((chain) => ({ chain, address: depositAddresses[chain]!, accountId: ctx.accountId, resource: id, created: uow.now })),
      );
      uow.schedule(PAYMENT_INTENT_EXPIRE, { intent: id }, { runAt: doc.expiresAt, dedupeKey: `${PAYMENT_INTENT_EXPIRE.kind}:${id}` });
      for (const chain of chains) await this.watchers.watch(uow, chain, doc.expiresAt);
      return ok(presentPaymentIntent(this.deps.assets, doc));
    });
  }

  /** Stripe's update of a payment intent: its metadata only (keys set, `""` removes one). */
  async update(ctx: RequestContext, id: string, input: UpdatePaymentIntentInput): Promise<Result<PaymentIntentObject, ApiError>> {
    const parsed = updatePaymentIntentSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    return updateMetadataOf(this.deps, ctx, PAYMENT_INTENTS, id, parsed.value.metadata, (doc) => presentPaymentIntent(this.deps.assets, doc), missing);
  }

  async retrieve(ctx: RequestContext, id: string, query: RetrievePaymentIntentParams = {}): Promise<Result<PaymentIntentObject, ApiError>> {
    const parsed = retrievePaymentIntentSchema.parse(query, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const stored = await this.deps.storage.read((tx) => PAYMENT_INTENTS.get(tx, ctx.accountId, id));
    if (!stored) return missing(id);
    const intent = presentPaymentIntent(this.deps.assets, stored.doc);
    await expandObjects(this.deps, ctx.accountId, PAYMENT_INTENT_EXPANDABLE, [intent], parsed.value.expand ?? []);
    return ok(intent);
  }

  list(ctx: RequestContext, params: ListPaymentIntentsParams = {}): PagedList<PaymentIntentObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, query: ListPaymentIntentsParams): Promise<Result<ListEnvelope<PaymentIntentObject>, ApiError>> {
    const parsed = listPaymentIntentsSchema.parse(query, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { expand, status, ...params } = parsed.value;
    const paths = itemPaths(expand);
    const page = await PAYMENT_INTENTS.list(
      this.deps,
      ctx,
      { ...params, ...(status ? { status } : {}) },
      (doc) => presentPaymentIntent(this.deps.assets, doc),
      paths.length ? { expand: paths } : undefined,
    );
    if (page.isOk()) await expandObjects(this.deps, ctx.accountId, PAYMENT_INTENT_EXPANDABLE, page.value.data, paths);
    return page;
  }

  /**
   * At `expires_at`, an intent that is not paid (and has nothing in flight) expires. Its chains
   * are read first: a deposit included in time must be seen before the intent can expire, so a
   * chain that cannot be read delays the expiry (the item retries) rather than the deposit
   * arriving "late" because the engine was.
   */
  expiryHandler(): JobHandler<{ intent: string }> {
    return async (job) => {
      const { intent } = job.payload;
      const accountId = job.accountId;
      const current = await this.deps.storage.read((tx) => PAYMENT_INTENTS.get(tx, accountId, intent));
      if (!current || current.doc.status === "expired" || current.doc.status === "succeeded") return;
      for (const chain of current.doc.chains) await this.watchers.poll(chain, job.livemode);
      const result = await this.deps.storage.command(jobContext(job), async (uow) => {
        const stored = await PAYMENT_INTENTS.get(uow.tx, accountId, intent, { lock: true });
        if (!stored) return ok(null);
        const doc = this.ingestion.reconcile(uow, stored.doc);
        if (doc.status !== stored.doc.status) await PAYMENT_INTENTS.update(uow.tx, stored, doc, uow.now);
        return ok(null);
      });
      if (result.isErr()) throw result.error;
    };
  }
}

function missing<T>(id: string): Result<T, ApiError> {
  return fail("resource_missing", `No such payment intent: ${id}`, { param: "id" });
}

import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../../errors";
import { presentLedgerEntries } from "../../ledger/ledger-entries";
import type { ListEnvelope } from "../../lists/list-page";
import { listParamsShape, searchParamShape } from "../../lists/list-params";
import { Decimal, isDecimalString } from "../../money/decimal";
import { parseAmount } from "../../money/amount";
import { isChainSimulation } from "../../ports/chain";
import type { StorageTx } from "../../ports/storage";
import { s } from "../../validation/schema";
import type { WorkHandler } from "../../workers/runner";
import { runCommand } from "../command";
import { systemContext, type EngineDeps, type RequestContext } from "../context";
import type { ChainWatchers } from "./chain-watchers";
import type { DepositIngestion } from "./deposit-ingestion";
import {
  PAYMENT_INTENTS,
  presentPaymentIntent,
  presentSettlement,
  type PaymentIntentDoc,
  type PaymentIntentObject,
} from "./payment-intent-doc";

const STATUSES = ["requires_payment", "processing", "succeeded", "partially_paid", "expired", "reverted", "unsupported_chain"] as const;

/** DECISIONS.md §4: expires_in defaults to an hour; bounds follow limit orders' (60 s to 30 days). */
export const DEFAULT_EXPIRES_IN = 3_600;

export const createPaymentIntentSchema = s.object({
  amount: s.amount(),
  asset: s.asset(),
  chains: s.array(s.string({ min: 1, max: 32 }), { min: 1, max: 16 }).optional().describe("Default: every chain of the asset"),
  reference: s.string({ min: 1, max: 255 }).optional(),
  expires_in: s.integer({ min: 60, max: 2_592_000 }).optional().describe("Seconds, default 3600"),
  tolerance: s.decimal().optional().describe('Fraction of the amount a payment may fall short by, "0" to below "1"; default "0"'),
});

const expand = s.array(s.enum(["settlements", "ledger_entries"] as const), { max: 4 });

export const retrievePaymentIntentSchema = s.object({ expand: expand.optional() });

export const listPaymentIntentsSchema = s.object({
  ...listParamsShape,
  ...searchParamShape,
  status: s.enum(STATUSES).optional(),
  expand: expand.optional(),
});

export const payPaymentIntentSchema = s.object({
  chain: s.chain(),
  amount: s.amount(),
  asset: s.asset().optional().describe("Default: the intent's asset (another asset is recorded, not credited)"),
});

export const EXPIRE_KIND = "payment_intents.expire";

/**
 * Payment intents (DECISIONS.md §4): an amount to receive, per-chain deposit addresses from the
 * chain port, deposits watched until final (`chain-watchers.ts`, `deposit-ingestion.ts`).
 */
export class PaymentIntentsService {
  constructor(
    private readonly deps: EngineDeps,
    private readonly ingestion: DepositIngestion,
    private readonly watchers: ChainWatchers,
  ) {}

  async create(ctx: RequestContext, input: unknown): Promise<Result<PaymentIntentObject, ApiError>> {
    const parsed = createPaymentIntentSchema.parse(input, "", { assets: this.deps.assets });
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
    for (const chain of chains) depositAddresses[chain] = await this.deps.chains.for(chain, ctx.livemode)!.depositAddress(chain, asset.code, id);
    // the payer may fall short by at most amount × tolerance, rounded down: the minimum rounds up
    const allowance = BigInt(new Decimal(amount.value.toString()).times(tolerance).round(0, Decimal.roundDown).toFixed());

    return runCommand(this.deps, ctx, async (uow) => {
      const doc: PaymentIntentDoc = {
        id,
        status: "requires_payment",
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
        created: uow.now,
      };
      await PAYMENT_INTENTS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      await uow.tx.depositAddresses.insert(
        chains.map((chain) => ({ chain, address: depositAddresses[chain]!, accountId: ctx.accountId, resource: id, created: uow.now })),
      );
      uow.schedule(EXPIRE_KIND, { intent: id, livemode: ctx.livemode }, { runAt: doc.expiresAt, dedupeKey: `${EXPIRE_KIND}:${id}` });
      for (const chain of chains) await this.watchers.watch(uow, chain, doc.expiresAt);
      return ok(presentPaymentIntent(this.deps.assets, doc));
    });
  }

  async retrieve(ctx: RequestContext, id: string, query: unknown): Promise<Result<PaymentIntentObject, ApiError>> {
    const parsed = retrievePaymentIntentSchema.parse(query, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    return this.deps.storage.transaction(async (tx) => {
      const stored = await PAYMENT_INTENTS.get(tx, ctx.accountId, id);
      if (!stored) return missing(id);
      return ok(await this.present(tx, ctx.accountId, stored.doc, parsed.value.expand ?? []));
    });
  }

  async list(ctx: RequestContext, query: unknown): Promise<Result<ListEnvelope<PaymentIntentObject>, ApiError>> {
    const parsed = listPaymentIntentsSchema.parse(query, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const { expand: fields = [], status, ...params } = parsed.value;
    return PAYMENT_INTENTS.list(
      this.deps,
      ctx,
      { ...params, ...(status ? { status } : {}) },
      (doc) =>
        fields.length ? this.deps.storage.transaction((tx) => this.present(tx, ctx.accountId, doc, fields)) : presentPaymentIntent(this.deps.assets, doc),
      fields.length ? { expand: [...fields].sort() } : undefined,
    );
  }

  /**
   * Test helper (DECISIONS.md §7): a payer sends `amount` to the intent's address on `chain`. A
   * chain the intent does not list receives at the intent's address of the same family (EVM
   * chains share addresses), which is how a payment on an unsupported chain happens.
   */
  async testPay(ctx: RequestContext, id: string, input: unknown): Promise<Result<PaymentIntentObject, ApiError>> {
    if (ctx.livemode) return fail("resource_missing", "Test helpers exist only in test mode");
    const parsed = payPaymentIntentSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const stored = await this.deps.storage.transaction((tx) => PAYMENT_INTENTS.get(tx, ctx.accountId, id));
    if (!stored) return missing(id);
    const doc = stored.doc;
    const chain = parsed.value.chain;
    const asset = parsed.value.asset ?? this.deps.assets.get(doc.asset)!;
    if (!asset.chains.includes(chain.name)) {
      return fail("chain_unsupported", `${asset.code} does not exist on ${chain.name}`, { param: "chain" });
    }
    const amount = parseAmount(parsed.value.amount, asset, "amount");
    if (amount.isErr()) return err(amount.error);
    const address =
      doc.depositAddresses[chain.name] ??
      Object.entries(doc.depositAddresses).find(([c]) => this.deps.assets.chain(c)?.family === chain.family)?.[1];
    if (!address) {
      return fail("chain_unsupported", `The intent has no address a payer could use on ${chain.name}`, { param: "chain" });
    }
    const adapter = this.deps.chains.any(chain.name);
    if (!adapter || !isChainSimulation(adapter)) return fail("resource_missing", `${chain.name} is not simulated on this engine`, { param: "chain" });
    adapter.pay({ chain: chain.name, asset: asset.code, address, amount: amount.value });
    await runCommand(this.deps, ctx, async (uow) => {
      await this.watchers.watch(uow, chain.name, uow.now);
      return ok(null);
    });
    await this.watchers.poll(chain.name); // the payer's transfer is seen at once
    const after = await this.deps.storage.transaction((tx) => PAYMENT_INTENTS.get(tx, ctx.accountId, id));
    return ok(presentPaymentIntent(this.deps.assets, after?.doc ?? doc));
  }

  /**
   * At `expires_at`, an intent that is not paid (and has nothing in flight) expires. Its chains
   * are read first: a deposit included in time must be seen before the intent can expire, so a
   * chain that cannot be read delays the expiry (the item retries) rather than the deposit
   * arriving "late" because the engine was.
   */
  expiryHandler(): WorkHandler {
    return async (job) => {
      const { intent, livemode } = job.payload as { intent: string; livemode: boolean };
      const accountId = job.accountId!;
      const current = await this.deps.storage.transaction((tx) => PAYMENT_INTENTS.get(tx, accountId, intent));
      if (!current || current.doc.status === "expired" || current.doc.status === "succeeded") return;
      for (const chain of current.doc.chains) await this.watchers.poll(chain);
      const result = await runCommand(this.deps, systemContext(accountId, livemode), async (uow) => {
        const stored = await PAYMENT_INTENTS.get(uow.tx, accountId, intent, { lock: true });
        if (!stored) return ok(null);
        const doc = this.ingestion.reconcile(uow, stored.doc);
        if (doc.status !== stored.doc.status) await PAYMENT_INTENTS.update(uow.tx, stored, doc, uow.now);
        return ok(null);
      });
      if (result.isErr()) throw result.error;
    };
  }

  private async present(tx: StorageTx, accountId: string, doc: PaymentIntentDoc, fields: readonly string[]): Promise<PaymentIntentObject> {
    const expanded: Parameters<typeof presentPaymentIntent>[2] = {};
    if (fields.includes("settlements")) expanded.settlements = doc.settlements.map((s) => presentSettlement(this.deps.assets, doc.id, s));
    if (fields.includes("ledger_entries")) {
      expanded.ledgerEntries = presentLedgerEntries(this.deps.assets, await tx.ledger.listEntries(accountId, { ids: doc.ledgerEntries }));
    }
    return presentPaymentIntent(this.deps.assets, doc, expanded);
  }
}

function missing<T>(id: string): Result<T, ApiError> {
  return fail("resource_missing", `No such payment intent: ${id}`, { param: "id" });
}

import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../../errors";
import { presentLedgerEntries } from "../../ledger/ledger-entries";
import { isCustomerBook } from "../../ledger/postings";
import type { ListEnvelope } from "../../lists/list-page";
import { listParamsShape, searchParamShape } from "../../lists/list-params";
import type { PayoutStatus } from "../../machines/payout-machine";
import type { AssetDefinition } from "../../money/assets";
import { parseAmount } from "../../money/amount";
import type { StorageTx } from "../../ports/storage";
import { s } from "../../validation/schema";
import { runCommand } from "../command";
import type { EngineDeps, RequestContext } from "../context";
import { checkPolicy, policyOf } from "../policy";
import { RECIPIENTS, type RecipientDoc } from "../recipients";
import type { UnitOfWork } from "../unit-of-work";
import { BatchCounts } from "./batch-counts";
import { PAYOUTS, presentPayout, type LegDoc, type PayoutDoc, type PayoutObject } from "./payout-doc";
import { PayoutPlanner, routingOptions, type PayoutPlan } from "./payout-planner";
import { PayoutTransitions, type StatusChange } from "./payout-transitions";
import type { PayoutWorkers } from "./payout-workers";
import { replaceSavedResponse } from "../idempotency";

const PAYOUT_STATUSES = ["created", "executing", "settled", "partially_settled", "failed", "canceled"] as const;

export const routingSchema = s.object({
  prefer_chains: s.array(s.string({ min: 1, max: 32 }), { max: 16 }).optional().describe("Soft preference, tried first"),
  max_network_fee: s.amount().optional().describe("Most to pay in network fees, in the payout asset"),
});

export const createPayoutSchema = s.object({
  amount: s.amount(),
  asset: s.asset(),
  recipient: s.string({ min: 1, max: 64 }),
  reference: s.string({ min: 1, max: 255 }).optional(),
  routing: routingSchema.optional(),
});

const expandSchema = s.array(s.enum(["ledger_entries"] as const), { max: 4 });

export const retrievePayoutSchema = s.object({ expand: expandSchema.optional() });

export const listPayoutsSchema = s.object({
  ...listParamsShape,
  ...searchParamShape,
  status: s.enum(PAYOUT_STATUSES).optional(),
  expand: expandSchema.optional(),
});

/**
 * Payouts: routed across chains at create, reserved (amount plus routed fee), then moved by
 * workers through broadcast and finality (`payout-workers.ts`). Every state change goes through
 * `PayoutTransitions`.
 */
export class PayoutsService {
  constructor(
    private readonly deps: EngineDeps,
    private readonly transitions: PayoutTransitions,
    private readonly batches: BatchCounts,
    private readonly workers: PayoutWorkers,
  ) {}

  async create(ctx: RequestContext, input: unknown): Promise<Result<PayoutObject, ApiError>> {
    const parsed = createPayoutSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const { asset, recipient: recipientId, reference, routing } = parsed.value;
    const amount = parseAmount(parsed.value.amount, asset, "amount");
    if (amount.isErr()) return err(amount.error);
    const options = routingOptions(asset, routing, (v) => parseAmount(v, asset, "routing.max_network_fee", { allowZero: true }));
    if (options.isErr()) return err(options.error);

    const { recipient, policy, funds } = await this.deps.storage.transaction(async (tx) => ({
      recipient: await RECIPIENTS.get(tx, ctx.accountId, recipientId),
      policy: policyOf((await tx.accounts.getAccount(ctx.accountId))?.settings),
      funds: await availableByChain(tx, ctx.accountId, asset),
    }));
    if (!recipient) return fail("resource_missing", `No such recipient: ${recipientId}`, { param: "recipient" });
    const payable = checkPayable(recipient.doc);
    if (payable.isErr()) return err(payable.error);
    const approval = checkPolicy(policy, asset, amount.value);
    if (approval.isErr()) return err(approval.error);
    const plan = await new PayoutPlanner(this.deps, ctx.livemode, asset, funds).plan(recipient.doc, amount.value, options.value);
    if (plan.isErr()) return err(plan.error);

    const created = await runCommand(this.deps, ctx, async (uow) => {
      const made = await this.open(uow, {
        asset,
        amount: amount.value,
        recipient: recipientId,
        reference: reference ?? null,
        batch: null,
        row: null,
        routing: routing ? { prefer_chains: options.value.preferChains, max_network_fee: routing.max_network_fee ?? null } : null,
        plan: plan.value,
        requiresApproval: approval.value.requiresApproval,
      });
      if (made.isErr()) return err(made.error);
      await PAYOUTS.insert(uow.tx, ctx.accountId, uow.now, [made.value.doc]);
      return ok(presentPayout(this.deps.assets, made.value.doc));
    });
    if (created.isErr() || created.value.status !== "executing") return created;
    return ok(await this.sendNow(ctx, created.value));
  }

  /**
   * The seed's create response carries an executing payout with its leg broadcast: send the legs
   * at once (the scheduled broadcast stays as the fallback if this process dies first) and
   * answer with the payout as it then stands, saved as the idempotent response too.
   */
  private async sendNow(ctx: RequestContext, payout: PayoutObject): Promise<PayoutObject> {
    try {
      await this.workers.broadcast(ctx.accountId, ctx.livemode, [payout.id]);
    } catch {
      return payout; // the scheduled broadcast retries
    }
    return this.deps.storage.transaction(async (tx) => {
      const stored = await PAYOUTS.get(tx, ctx.accountId, payout.id);
      const latest = stored ? presentPayout(this.deps.assets, stored.doc) : payout;
      if (ctx.idempotency) await replaceSavedResponse(tx, ctx.idempotency, { status: 200, body: latest });
      return latest;
    });
  }

  /**
   * Reserves a planned payout's legs and runs its first transition, inside `uow`; the caller
   * inserts the document. Shared by single payouts and batches.
   */
  async open(
    uow: UnitOfWork,
    p: {
      asset: AssetDefinition;
      amount: bigint;
      recipient: string;
      reference: string | null;
      batch: string | null;
      row: number | null;
      routing: PayoutDoc["routing"];
      plan: PayoutPlan;
      requiresApproval: boolean;
    },
    options: { deferBroadcast?: boolean } = {},
  ): Promise<Result<{ doc: PayoutDoc; change: StatusChange }, ApiError>> {
    const id = this.deps.ids.next("po");
    const legs: LegDoc[] = [];
    for (const leg of p.plan.legs) {
      const reservation = await uow.ledger.reserve({
        accountId: uow.ctx.accountId,
        asset: p.asset,
        chain: leg.chain,
        amount: leg.amount + leg.fee,
        resource: id,
      });
      if (reservation.isErr()) {
        return fail("insufficient_funds", `Insufficient available ${p.asset.code} on ${leg.chain} for this payout and its network fee`);
      }
      legs.push({
        id: this.deps.ids.next("leg"),
        chain: leg.chain,
        address: leg.address,
        amount: leg.amount.toString(),
        fee: leg.fee.toString(),
        reservation: reservation.value.id,
        status: "pending",
        machine: { txHash: null, confirmations: 0, finality: "pending", failureCode: null },
      });
    }
    const draft: PayoutDoc = {
      id,
      status: "created",
      machine: { requiresApproval: p.requiresApproval },
      asset: p.asset.code,
      amount: p.amount.toString(),
      fee: p.plan.fee.toString(),
      recipient: p.recipient,
      reference: p.reference,
      batch: p.batch,
      row: p.row,
      routing: p.routing,
      approximateRoute: p.plan.approximate,
      legs,
      ledgerEntries: uow.ledger
        .postedFor(id)
        .filter((e) => isCustomerBook(e.book))
        .map((e) => e.id),
      created: uow.now,
      canceledAt: null,
      settledAt: null,
    };
    return ok(this.transitions.start(uow, draft, p.requiresApproval, options));
  }

  async retrieve(ctx: RequestContext, id: string, query: unknown): Promise<Result<PayoutObject, ApiError>> {
    const parsed = retrievePayoutSchema.parse(query, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const expand = parsed.value.expand?.includes("ledger_entries") ?? false;
    return this.deps.storage.transaction(async (tx) => {
      const stored = await PAYOUTS.get(tx, ctx.accountId, id);
      if (!stored) return missing(id);
      return ok(await this.present(tx, ctx.accountId, stored.doc, expand));
    });
  }

  async list(ctx: RequestContext, query: unknown): Promise<Result<ListEnvelope<PayoutObject>, ApiError>> {
    const parsed = listPayoutsSchema.parse(query, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const { expand, status, ...params } = parsed.value;
    const withEntries = expand?.includes("ledger_entries") ?? false;
    return PAYOUTS.list(
      this.deps,
      ctx,
      { ...params, ...(status ? { status } : {}) },
      (doc) =>
        withEntries
          ? this.deps.storage.transaction((tx) => this.present(tx, ctx.accountId, doc, true))
          : presentPayout(this.deps.assets, doc),
      withEntries ? { expand: ["ledger_entries"] } : undefined,
    );
  }

  approve(ctx: RequestContext, id: string): Promise<Result<PayoutObject, ApiError>> {
    return this.act(ctx, id, "approve", (status) =>
      fail("parameter_invalid", `Only payouts in created can be approved; this one is ${status}`, { param: "id" }),
    );
  }

  cancel(ctx: RequestContext, id: string): Promise<Result<PayoutObject, ApiError>> {
    return this.act(ctx, id, "cancel", (status) =>
      fail("payout_not_cancelable", `Only payouts in created can be canceled; this one is ${status}`, { param: "id" }),
    );
  }

  private act(
    ctx: RequestContext,
    id: string,
    type: "approve" | "cancel",
    refused: (status: PayoutStatus) => Result<never, ApiError>,
  ): Promise<Result<PayoutObject, ApiError>> {
    return runCommand(this.deps, ctx, async (uow) => {
      const stored = await PAYOUTS.get(uow.tx, ctx.accountId, id, { lock: true });
      if (!stored) return missing(id);
      const { doc, handled, change } = await this.transitions.onPayout(uow, stored.doc, { type });
      if (!handled) return refused(stored.doc.status);
      await PAYOUTS.update(uow.tx, stored, doc, uow.now);
      if (change) await this.batches.apply(uow, [change]);
      return ok(presentPayout(this.deps.assets, doc));
    });
  }

  private async present(tx: StorageTx, accountId: string, doc: PayoutDoc, expand: boolean): Promise<PayoutObject> {
    if (!expand) return presentPayout(this.deps.assets, doc);
    const entries = await tx.ledger.listEntries(accountId, { ids: doc.ledgerEntries });
    return presentPayout(this.deps.assets, doc, presentLedgerEntries(this.deps.assets, entries));
  }
}

/** A recipient can be paid unless screening flagged it. */
export function checkPayable(recipient: RecipientDoc, param = "recipient"): Result<true, ApiError> {
  return recipient.screeningStatus === "flagged"
    ? fail("recipient_blocked", `Recipient ${recipient.id} was flagged by screening and cannot be paid`, { param })
    : ok(true);
}

/** The account's available balance of `asset` per chain. */
export async function availableByChain(tx: StorageTx, accountId: string, asset: AssetDefinition): Promise<Map<string, bigint>> {
  const funds = new Map<string, bigint>();
  for (const row of await tx.ledger.listBalances(accountId)) {
    if (row.asset === asset.code && row.book === "available") funds.set(row.chain, row.amount);
  }
  return funds;
}

function missing<T>(id: string): Result<T, ApiError> {
  return fail("resource_missing", `No such payout: ${id}`, { param: "id" });
}

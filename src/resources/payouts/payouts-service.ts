import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../../errors";
import { expandObjects, itemPaths } from "../../lists/expansion";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import type { PayoutStatus } from "./payout-machine";
import type { AssetDefinition } from "../../money/assets";
import { parseAmount } from "../../money/amount";
import type { ModuleDeps, ReadTx, RequestContext } from "../../engine/context";
import { checkPolicy, policyOf } from "../accounts/policy";
import { RECIPIENTS, type RecipientDoc } from "../recipients/recipients-service";
import type { UnitOfWork } from "../../engine/unit-of-work";
import type { Stored } from "../../engine/doc-store";
import type { Refusal } from "../../ledger/ledger";
import type { BatchCounts } from "./batch-counts";
import { PAYOUTS, legEntries, presentPayout, sign, type LegDoc, type PayoutDoc, type PayoutObject } from "./payout-doc";
import { PAYOUT_EXPANDABLE } from "./payout-expansions";
import { PayoutPlanner, routingOptions, type PayoutPlan } from "./payout-planner";
import type { PayoutTransitions, NewPayout, StatusChange } from "./payout-transitions";
import type { PayoutWorkers } from "./payout-workers";
import type { OutboundTransfer } from "../../ports/chain";
import { replaceSavedResponse } from "../../engine/idempotency";
import {
  type CreatePayoutInput,
  type ListPayoutsParams,
  type RetrievePayoutParams,
  type UpdatePayoutInput,
  createPayoutSchema,
  listPayoutsSchema,
  retrievePayoutSchema,
  updatePayoutSchema,
} from "./payout-schemas";
import { type Metadata, newMetadata } from "../../metadata/metadata";
import { updateMetadataOf } from "../../metadata/metadata-update";
import { newLeg } from "./leg-machine";

/**
 * Payouts: routed across chains at create, reserved (amount plus routed fee), then moved by
 * workers through broadcast and finality (`payout-workers.ts`). Every state change goes through
 * `PayoutTransitions`.
 */
export class PayoutsService {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "chains" | "cursors" | "ids" | "observer" | "parse" | "storage">,
    private readonly transitions: PayoutTransitions,
    private readonly batches: BatchCounts,
    private readonly workers: PayoutWorkers,
  ) {}

  async create(ctx: RequestContext, input: CreatePayoutInput): Promise<Result<PayoutObject, ApiError>> {
    const parsed = createPayoutSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { asset, recipient: recipientId, reference, routing, metadata } = parsed.value;
    const amount = parseAmount(parsed.value.amount, asset, "amount");
    if (amount.isErr()) return err(amount.error);
    const options = routingOptions(asset, routing, (v) => parseAmount(v, asset, "routing.max_network_fee", { allowZero: true }));
    if (options.isErr()) return err(options.error);

    // the recipient and the account's settings in one read (one statement on a server)
    const { account, resource } = await this.deps.storage.read((tx) => tx.accounts.getAccountWith(ctx.accountId, recipientId));
    const recipient = RECIPIENTS.stored(resource);
    const policy = policyOf(account?.settings);
    if (!recipient) return fail("resource_missing", `No such recipient: ${recipientId}`, { param: "recipient" });
    const payable = checkPayable(recipient.doc);
    if (payable.isErr()) return err(payable.error);
    const approval = checkPolicy(policy, asset, amount.value);
    if (approval.isErr()) return err(approval.error);
    // the chains are asked before the transaction; the plan is made in it, on the funds it locked
    const planner = new PayoutPlanner(this.deps, ctx.livemode, asset);
    await planner.prepare(recipient.doc);

    // an executing payout's legs are claimed for sending in the create's own transaction; the
    // transaction returns the payout, its row and its claimed legs (the storage may run it again)
    const created = await this.deps.storage.command(
      ctx,
      async (uow) => {
        planner.useFunds(await uow.ledger.availableByChain(ctx.accountId, asset));
        const plan = await planner.plan(recipient.doc, amount.value, options.value);
        if (plan.isErr()) return err(plan.error);
        const made = await this.open(uow, {
          asset,
          amount: amount.value,
          recipient: recipientId,
          reference: reference ?? null,
          metadata: newMetadata(metadata),
          batch: null,
          row: null,
          routing: routing ? { prefer_chains: options.value.preferChains, max_network_fee: routing.max_network_fee ?? null } : null,
          plan: plan.value,
          requiresApproval: approval.value.requiresApproval,
        });
        if (made.isErr()) return err(made.error);
        const opened = made.value.doc;
        const { doc, transfers } = opened.status === "executing" ? this.workers.claimAtCreate(opened, uow.now, ctx.livemode) : { doc: opened, transfers: [] };
        const [row] = await PAYOUTS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
        return ok({ payout: presentPayout(this.deps.assets, doc), row: row!, claimed: transfers });
      },
      // it locks the asset's balances, plans, writes and commits: its locks can wait for its last statement
      { stored: ({ payout }) => payout, optimistic: true },
    );
    if (created.isErr()) return err(created.error);
    const { payout, row, claimed } = created.value;
    if (claimed.length === 0) return ok(payout);
    return ok(await this.sendNow(ctx, payout, row, claimed));
  }

  /**
   * The seed's create response carries an executing payout with its leg broadcast: send the legs
   * claimed at create at once (the scheduled broadcast stays as the fallback if this process dies
   * first, once the claim runs out) and answer with the payout as it then stands, saved as the
   * idempotent response too, in the transaction that records the sends. That transaction starts
   * from the payout as the create wrote it (`stored`), unread and unlocked: on a server it is one
   * statement, unless something changed the payout meanwhile (then it reads and locks it).
   */
  private async sendNow(ctx: RequestContext, payout: PayoutObject, stored: Stored<PayoutDoc>, claimed: OutboundTransfer[]): Promise<PayoutObject> {
    let latest = payout;
    try {
      const recorded = async (uow: UnitOfWork, docs: PayoutDoc[]) => {
        const doc = docs.find((d) => d.id === payout.id);
        if (!doc) return;
        latest = presentPayout(this.deps.assets, doc);
        if (ctx.idempotency) await replaceSavedResponse(uow.tx, ctx.idempotency, { status: 200, body: latest });
      };
      // Lost in a crash of the database, this record is made again: the scheduled broadcast sends
      // the claimed legs once their claim runs out, and the chain answers with the same outcome.
      await this.workers.sendClaimed(ctx, new Map([[payout.id, claimed]]), { recorded, assumed: [stored], durable: false });
    } catch {
      return payout; // the scheduled broadcast retries
    }
    return latest;
  }

  /**
   * Reserves a planned payout's legs and runs its first transition, inside `uow`; the caller
   * inserts the document. `openMany` with one payout.
   */
  async open(uow: UnitOfWork, p: OpenPayout, options: { deferBroadcast?: boolean } = {}): Promise<Result<{ doc: PayoutDoc; change: StatusChange }, ApiError>> {
    const opened = await this.openMany(uow, [p], options);
    return opened.isOk() ? ok(opened.value[0]!) : err(opened.error.error);
  }

  /**
   * Reserves the legs of planned payouts (amount plus fee per leg, with one ledger call for all
   * of them: one lock, one posting per leg) and runs each payout's first transition, inside
   * `uow`; the caller inserts the documents. Shared by single payouts and batches. All or none:
   * a shortage refuses every payout (nothing is reserved) with the index of the first that did
   * not fit after the ones before it.
   */
  async openMany(
    uow: UnitOfWork,
    payouts: readonly OpenPayout[],
    options: { deferBroadcast?: boolean } = {},
  ): Promise<Result<{ doc: PayoutDoc; change: StatusChange }[], Refusal>> {
    const accountId = uow.ctx.accountId;
    const ids = payouts.map((p) => p.id ?? this.deps.ids.next("po"));
    const requests = payouts.flatMap((p, i) =>
      p.plan.legs.map((leg) => ({ accountId, asset: p.asset, chain: leg.chain, amount: leg.amount + leg.fee, resource: ids[i]! })),
    );
    const reserved = await uow.ledger.reserveMany(requests);
    if (reserved.isErr()) {
      const { asset, chain } = requests[reserved.error.index]!;
      const index = ids.indexOf(requests[reserved.error.index]!.resource);
      const message = `Insufficient available ${asset.code} on ${chain} for this payout and its network fee`;
      return err({ index, error: new ApiError("insufficient_funds", message) });
    }
    let next = 0;
    return ok(
      payouts.map((p, i) => {
        const legs: LegDoc[] = p.plan.legs.map((leg) => {
          const { reservation, entries } = reserved.value[next++]!;
          return {
            id: this.deps.ids.next("leg"),
            chain: leg.chain,
            address: leg.address,
            amount: leg.amount.toString(),
            fee: leg.fee.toString(),
            reservation: reservation.id,
            // The reservation holds amount and fee: its entries carry the whole fee.
            entries: legEntries(accountId, entries, (e) => sign(e.amount) * leg.fee),
            ...newLeg(),
          };
        });
        const draft: NewPayout = {
          id: ids[i]!,
          asset: p.asset.code,
          amount: p.amount.toString(),
          fee: p.plan.fee.toString(),
          recipient: p.recipient,
          reference: p.reference,
          ...(Object.keys(p.metadata).length ? { metadata: p.metadata } : {}),
          batch: p.batch,
          row: p.row,
          routing: p.routing,
          approximateRoute: p.plan.approximate,
          legs,
          // the payout is new: its reservations' entries are all it has posted
          ledgerEntries: legs.flatMap((leg) => leg.entries!.map((e) => e.id)),
          created: uow.now,
          canceledAt: null,
          settledAt: null,
        };
        return this.transitions.start(uow, draft, p.requiresApproval, options);
      }),
    );
  }

  async retrieve(ctx: RequestContext, id: string, params: RetrievePayoutParams = {}): Promise<Result<PayoutObject, ApiError>> {
    const parsed = retrievePayoutSchema.parse(params, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const stored = await this.deps.storage.read((tx) => PAYOUTS.get(tx, ctx.accountId, id));
    if (!stored) return missing(id);
    const payout = presentPayout(this.deps.assets, stored.doc);
    await expandObjects(this.deps, ctx.accountId, PAYOUT_EXPANDABLE, [payout], parsed.value.expand ?? []);
    return ok(payout);
  }

  list(ctx: RequestContext, params: ListPayoutsParams = {}): PagedList<PayoutObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, params: ListPayoutsParams): Promise<Result<ListEnvelope<PayoutObject>, ApiError>> {
    const parsed = listPayoutsSchema.parse(params, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { expand, status, ...rest } = parsed.value;
    const paths = itemPaths(expand);
    const page = await PAYOUTS.list(
      this.deps,
      ctx,
      { ...rest, ...(status ? { status } : {}) },
      (doc) => presentPayout(this.deps.assets, doc),
      paths.length ? { expand: paths } : undefined,
    );
    if (page.isOk()) await expandObjects(this.deps, ctx.accountId, PAYOUT_EXPANDABLE, page.value.data, paths);
    return page;
  }

  /** Stripe's update of a payout: its metadata only (keys set, `""` removes one); nothing else of a payout changes on request. */
  async update(ctx: RequestContext, id: string, input: UpdatePayoutInput): Promise<Result<PayoutObject, ApiError>> {
    const parsed = updatePayoutSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    return updateMetadataOf(this.deps, ctx, PAYOUTS, id, parsed.value.metadata, (doc) => presentPayout(this.deps.assets, doc), missing);
  }

  approve(ctx: RequestContext, id: string): Promise<Result<PayoutObject, ApiError>> {
    return this.act(ctx, id, "approve", (status) =>
      fail("payout_not_approvable", `Only payouts awaiting approval (created) can be approved; this one is ${status}`, { param: "id" }),
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
    return this.deps.storage.command(ctx, async (uow) => {
      const stored = await PAYOUTS.get(uow.tx, ctx.accountId, id, { lock: true });
      if (!stored) return missing(id);
      const { doc, handled, change } = await this.transitions.onPayout(uow, stored.doc, { type });
      if (!handled) return refused(stored.doc.status);
      await PAYOUTS.update(uow.tx, stored, doc, uow.now);
      if (change) await this.batches.apply(uow, [change]);
      return ok(presentPayout(this.deps.assets, doc));
    });
  }
}

/** A planned payout to open (`PayoutsService.open`, `openMany`). */
export interface OpenPayout {
  /** Its id when chosen ahead (a batch's staged slice); else a new one. */
  id?: string;
  asset: AssetDefinition;
  amount: bigint;
  recipient: string;
  reference: string | null;
  metadata: Metadata;
  batch: string | null;
  row: number | null;
  routing: PayoutDoc["routing"];
  plan: PayoutPlan;
  requiresApproval: boolean;
}

/** A recipient can be paid unless screening flagged it. */
export function checkPayable(recipient: RecipientDoc, param = "recipient"): Result<true, ApiError> {
  return recipient.screeningStatus === "flagged"
    ? fail("recipient_blocked", `Recipient ${recipient.id} was flagged by screening and cannot be paid`, { param })
    : ok(true);
}

/** The account's available balance of `asset` per chain. */
export async function availableByChain(tx: Pick<ReadTx, "ledger">, accountId: string, asset: AssetDefinition): Promise<Map<string, bigint>> {
  const funds = new Map<string, bigint>();
  for (const row of await tx.ledger.listBalances(accountId)) {
    if (row.asset === asset.code && row.book === "available") funds.set(row.chain, row.amount);
  }
  return funds;
}

function missing<T>(id: string): Result<T, ApiError> {
  return fail("resource_missing", `No such payout: ${id}`, { param: "id" });
}

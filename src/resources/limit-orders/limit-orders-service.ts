import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import { limitOrderMachine } from "./limit-order-machine";
import { startMachine } from "../../engine/machine-step";
import { parseAmount } from "../../money/amount";
import { parseFraction, parseSlippage } from "../../quoting/quote-metrics";
import type { Job } from "../../workers/due-work";
import type { WorkOutcome } from "../../workers/runner";
import { jobContext, type ModuleDeps, type RequestContext } from "../../engine/context";
import { distinctAssets, venueChain } from "../conversion";
import { type CreateLimitOrderInput, EXPIRES_IN, type ListLimitOrdersParams, createLimitOrderSchema, listLimitOrdersSchema } from "./limit-order-schemas";
import { isOpen, type LimitOrderTransitions } from "./limit-order-transitions";
import { LIMIT_ORDERS, type LimitOrderDoc, type LimitOrderObject } from "./limit-order-doc";
import { newMetadata } from "../../metadata/metadata";

/**
 * `POST/GET/DELETE /v1/limit_orders` and the due work that matches and expires them
 * (docs/decisions.md §4, research §5). Placement reserves the input (it stays in the balance as
 * `reserved`, not escrowed); a recurring `limit_order.match` job looks at the venues every
 * `limitOrderMatchIntervalMs` and fills what qualifies; `limit_order.expire` runs just after
 * `expires_at`. Cancel and expiry release what is still reserved at once; fills stay.
 */
export class LimitOrdersService {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "cursors" | "ids" | "parse" | "storage" | "venues">,
    private readonly transitions: LimitOrderTransitions,
  ) {}

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
    // On-chain venues take the input on their chain and deliver there (as swaps do).
    const onChain = await venueChain(this.deps, ctx.livemode, from.code, to.code, null, p.destination_chain?.name ?? null);
    if (onChain.isErr()) return err(onChain.error);

    return this.deps.storage.command(ctx, async (uow) => {
      const id = this.deps.ids.next("lo");
      const request = { accountId: ctx.accountId, asset: from, amount: amount.value, resource: id };
      const reserved = onChain.value
        ? (await uow.ledger.reserve({ ...request, chain: onChain.value })).map((r) => [r])
        : await uow.ledger.reserveAcrossChains(request);
      if (reserved.isErr()) return err(reserved.error);
      const main = reserved.value[0]!.chain;
      const chain = onChain.value ?? p.destination_chain?.name ?? (to.chains.includes(main) ? main : to.chains[0]!);
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
        metadata: newMetadata(p.metadata),
        created: uow.now,
      };
      await LIMIT_ORDERS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      await this.transitions.carryOut(uow, ctx.accountId, doc, start.actions);
      return ok(this.transitions.present(doc));
    });
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<LimitOrderObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => LIMIT_ORDERS.get(tx, ctx.accountId, id));
    return stored ? ok(this.transitions.present(stored.doc)) : missing(id);
  }

  list(ctx: RequestContext, params: ListLimitOrdersParams = {}): PagedList<LimitOrderObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, input: ListLimitOrdersParams): Promise<Result<ListEnvelope<LimitOrderObject>, ApiError>> {
    const parsed = listLimitOrdersSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    return LIMIT_ORDERS.list(this.deps, ctx, parsed.value, (doc) => this.transitions.present(doc));
  }

  /** `DELETE /v1/limit_orders/{id}`: releases the reservation at once; fills stay. */
  cancel(ctx: RequestContext, id: string): Promise<Result<LimitOrderObject, ApiError>> {
    return this.deps.storage.command(ctx, async (uow) => {
      const stored = await LIMIT_ORDERS.get(uow.tx, ctx.accountId, id, { lock: true });
      if (!stored) return missing(id);
      if (!isOpen(stored.doc)) {
        return fail("limit_order_not_cancelable", `Limit order ${id} is ${stored.doc.status} and cannot be canceled`, { param: "id" });
      }
      return ok(this.transitions.present(await this.transitions.cancelWithin(uow, ctx.accountId, stored, "requested")));
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
      await this.transitions.cancelWithin(uow, accountId, stored, "expired");
      return ok(null);
    });
    if (done.isErr()) throw done.error;
    if (done.value !== null) return { kind: "reschedule", at: done.value };
  }
}

function missing(id: string): Result<never, ApiError> {
  return fail("resource_missing", `No such limit order: ${id}`, { param: "id" });
}

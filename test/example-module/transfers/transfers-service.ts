import { err, ok, type Result } from "neverthrow";
import type { Out } from "../../../src/api/response-schema";
import type { ModuleDeps, RequestContext } from "../../../src/engine/context";
import { DocStore, type Stored } from "../../../src/engine/doc-store";
import { startMachine, stepMachine, type ActionOf } from "../../../src/engine/machine-step";
import type { UnitOfWork } from "../../../src/engine/unit-of-work";
import { type ApiError, fail } from "../../../src/errors";
import { transfer } from "../../../src/ledger/postings";
import { type PagedList, pagedList } from "../../../src/lists/list-page";
import { formatAmount, parseAmount } from "../../../src/money/amount";
import { isoTime } from "../../../src/validation/timestamp";
import { transferMachine, type TransferStatus } from "./transfer-machine";
import type { Transfer } from "./transfer-objects";
import { type CreateTransferInput, type ListTransfersParams, createTransferSchema, listTransfersSchema } from "./transfer-schemas";

export type TransferObject = Out<typeof Transfer>;

interface TransferDoc {
  id: string;
  status: TransferStatus;
  destination: string;
  asset: string;
  chain: string;
  amount: string;
  description: string | null;
  created: number;
  reversedAt: number | null;
}

const TRANSFERS = new DocStore<TransferDoc>({ kind: "transfer", version: 1, status: (d) => d.status, reference: () => null });

/** `POST/GET /v1/transfers`: funds moved between accounts of one mode, in one ledger posting. */
export class TransfersService {
  constructor(private readonly deps: ModuleDeps) {}

  async create(ctx: RequestContext, input: CreateTransferInput): Promise<Result<TransferObject, ApiError>> {
    const parsed = createTransferSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { destination, asset, chain, description } = parsed.value;
    if (!asset.chains.includes(chain.name)) return fail("parameter_invalid", `${asset.code} does not exist on ${chain.name}`, { param: "chain" });
    const amount = parseAmount(parsed.value.amount, asset, "amount");
    if (amount.isErr()) return err(amount.error);
    if (destination === ctx.accountId) return fail("parameter_invalid", "A transfer goes to another account", { param: "destination" });
    return this.deps.storage.command(ctx, async (uow) => {
      const to = await uow.tx.accounts.getAccount(destination);
      const house = destination === this.deps.house.test || destination === this.deps.house.live;
      if (!to || to.livemode !== ctx.livemode || house) return fail("resource_missing", `No such account: ${destination}`, { param: "destination" });
      const start = startMachine(transferMachine);
      const doc: TransferDoc = {
        id: this.deps.ids.next("tr"),
        status: start.value,
        destination,
        asset: asset.code,
        chain: chain.name,
        amount: amount.value.toString(),
        description: description ?? null,
        created: uow.now,
        reversedAt: null,
      };
      const done = await this.carryOut(uow, doc, start.actions);
      if (done.isErr()) return err(done.error);
      await TRANSFERS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      return ok(this.present(doc));
    });
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<TransferObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => TRANSFERS.get(tx, ctx.accountId, id));
    return stored ? ok(this.present(stored.doc)) : missing(id);
  }

  list(ctx: RequestContext, params: ListTransfersParams = {}): PagedList<TransferObject> {
    return pagedList(params, async (p) => {
      const parsed = listTransfersSchema.parse(p, "", this.deps.parse);
      if (parsed.isErr()) return err(parsed.error);
      return TRANSFERS.list(this.deps, ctx, parsed.value, (doc) => this.present(doc));
    });
  }

  /** Takes a posted transfer back: refused (`insufficient_funds`) when the receiver no longer has the funds. */
  reverse(ctx: RequestContext, id: string): Promise<Result<TransferObject, ApiError>> {
    return this.deps.storage.command(ctx, async (uow) => {
      const stored: Stored<TransferDoc> | null = await TRANSFERS.get(uow.tx, ctx.accountId, id, { lock: true });
      if (!stored) return missing(id);
      const step = stepMachine(transferMachine, { value: stored.doc.status, context: {} }, { type: "reverse" });
      if (!step.handled) return fail("parameter_invalid", `Transfer ${id} is ${stored.doc.status} and cannot be reversed`, { param: "id" });
      const doc: TransferDoc = { ...stored.doc, status: step.value, reversedAt: uow.now };
      const done = await this.carryOut(uow, doc, step.actions);
      if (done.isErr()) return err(done.error);
      await TRANSFERS.update(uow.tx, stored, doc, uow.now);
      return ok(this.present(doc));
    });
  }

  private async carryOut(uow: UnitOfWork, doc: TransferDoc, actions: ActionOf<typeof transferMachine>[]): Promise<Result<void, ApiError>> {
    const move = (from: string, to: string, step: string) => {
      const lines = transfer(doc.asset, doc.chain, "available", "available", BigInt(doc.amount));
      return uow.ledger.post({
        accountId: from,
        resource: doc.id,
        transition: step,
        lines: [
          { ...lines[0]!, accountId: from },
          { ...lines[1]!, accountId: to },
        ],
      });
    };
    for (const action of actions) {
      switch (action.type) {
        case "post": {
          const posted = await move(uow.ctx.accountId, doc.destination, "post");
          if (posted.isErr()) return err(posted.error);
          break;
        }
        case "unpost": {
          const posted = await move(doc.destination, uow.ctx.accountId, "reverse");
          if (posted.isErr()) return err(posted.error);
          break;
        }
        case "emitCreated":
          uow.emit("transfer.created", this.present(doc));
          break;
        case "emitReversed":
          uow.emit("transfer.reversed", this.present(doc));
          break;
      }
    }
    return ok(undefined);
  }

  private present(doc: TransferDoc): TransferObject {
    return presentTransfer(this.deps, doc);
  }
}

export function presentTransfer(deps: Pick<ModuleDeps, "assets">, doc: TransferDoc): TransferObject {
  return {
    id: doc.id,
    object: "transfer",
    status: doc.status,
    destination: doc.destination,
    asset: doc.asset,
    chain: doc.chain,
    amount: formatAmount(BigInt(doc.amount), deps.assets.get(doc.asset)!),
    description: doc.description,
    created: isoTime(doc.created),
    reversed_at: doc.reversedAt === null ? null : isoTime(doc.reversedAt),
  };
}

function missing(id: string): Result<never, ApiError> {
  return fail("resource_missing", `No such transfer: ${id}`, { param: "id" });
}

import type { PayoutBatchValidation } from "./payout-objects";
import type { Out } from "../../api/response-schema";
import { err, ok, type Result } from "neverthrow";
import { ApiError, fail, type RowError } from "../../errors";
import type { AssetDefinition } from "../../money/assets";
import { formatAmount, parseAmount } from "../../money/amount";
import { isPlainObject } from "../../validation/schema";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { checkPolicy, policyOf } from "../accounts/policy";
import { RECIPIENTS, type RecipientDoc } from "../recipients/recipients-service";
import { BATCHES, presentBatch, type BatchObject } from "./batch-doc";
import { PayoutPlanner } from "./payout-planner";
import { availableByChain, checkPayable } from "./payouts-service";
import type { BatchAcceptance, BatchHead, PlannedRow } from "./batch-acceptance";
import { Turns } from "../../concurrency/yield";
import {
  type CreateBatchInput,
  type CreateBatchParams,
  type ListBatchesParams,
  MAX_BATCH_LEGS,
  batchHeadSchema,
  batchLegSchema,
  batchQuerySchema,
  listBatchesSchema,
} from "./payout-schemas";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import { type Metadata, newMetadata } from "../../metadata/metadata";

/** Recipients a batch reads per statement. */
const RECIPIENT_READ = 1_000;

export type BatchValidation = Out<typeof PayoutBatchValidation>;

interface ValidRow {
  row: number;
  amount: bigint;
  recipient: RecipientDoc;
  reference: string | null;
  metadata: Metadata;
  requiresApproval: boolean;
}

/**
 * Batches (docs/decisions.md §4): up to 25,000 legs under one Idempotency-Key, validated all or
 * nothing (every bad row is listed; nothing is created), planned against the account's funds and
 * the chains' liquidity, then accepted: in one transaction with bulk writes when it fits one
 * slice (`EngineConfig.batchSlice`), else slice by slice (`BatchAcceptance`). `dry_run` runs the
 * same validation and planning and answers exactly what a real submission would.
 */
export class BatchesService {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "chains" | "config" | "cursors" | "ids" | "observer" | "parse" | "storage">,
    private readonly acceptance: BatchAcceptance,
  ) {}

  async create(ctx: RequestContext, input: CreateBatchInput, params: CreateBatchParams = {}): Promise<Result<BatchObject | BatchValidation, ApiError>> {
    const parsedQuery = batchQuerySchema.parse(params, "", this.deps.parse);
    if (parsedQuery.isErr()) return err(parsedQuery.error);
    const dryRun = parsedQuery.value.dry_run ?? false;

    if (!isPlainObject(input)) return fail("parameter_invalid", "The request body must be an object", { param: "body" });
    const { legs: rawLegs, ...head } = input;
    if (rawLegs === undefined) return fail("parameter_missing", "Missing required parameter: legs", { param: "legs" });
    if (!Array.isArray(rawLegs)) return fail("parameter_invalid", "legs must be an array", { param: "legs" });
    if (rawLegs.length > MAX_BATCH_LEGS) {
      return fail("batch_too_large", `A batch has at most ${MAX_BATCH_LEGS} legs; this one has ${rawLegs.length}`, { param: "legs" });
    }
    if (rawLegs.length === 0) return fail("batch_invalid", "A batch needs at least one leg", { param: "legs" });
    const parsedHead = batchHeadSchema.parse(head, "", this.deps.parse);
    if (parsedHead.isErr()) return err(parsedHead.error);
    const asset = parsedHead.value.funding.asset;

    // recipients read a thousand at a time, rows validated and planned in turns of about 20 ms:
    // a 25,000-leg batch never holds the storage or the event loop long enough to make another request wait
    const ids = [...new Set(rawLegs.map((l) => (isPlainObject(l) && typeof l.recipient === "string" ? l.recipient : "")))].filter(Boolean);
    const recipients = new Map<string, RecipientDoc>();
    for (let i = 0; i < ids.length; i += RECIPIENT_READ) {
      const part = ids.slice(i, i + RECIPIENT_READ);
      for (const [id, doc] of await this.deps.storage.read((tx) => RECIPIENTS.getMany(tx, ctx.accountId, part))) recipients.set(id, doc);
    }
    const { policy, funds } = await this.deps.storage.read(async (tx) => ({
      policy: policyOf((await tx.accounts.getAccount(ctx.accountId))?.settings),
      funds: await availableByChain(tx, ctx.accountId, asset),
    }));

    const turns = new Turns();
    const errors: RowError[] = [];
    const rows: ValidRow[] = [];
    for (const [index, raw] of rawLegs.entries()) {
      await turns.next();
      const row = this.validateRow(raw, index, asset, recipients, policy);
      if ("errors" in row) errors.push(...row.errors);
      else rows.push(row);
    }
    if (errors.length) return batchInvalid(errors);

    // Planning takes each row's route off the liquidity and funds the rows before it used.
    const planner = new PayoutPlanner(this.deps, ctx.livemode, asset, funds);
    const planned: PlannedRow[] = [];
    for (const row of rows) {
      await turns.next();
      const plan = await planner.plan(row.recipient, row.amount, { preferChains: [], maxNetworkFee: null });
      if (plan.isErr()) {
        if (plan.error.code === "insufficient_funds") {
          return fail("insufficient_funds", `Insufficient available ${asset.code} for this batch and its network fees (first short at row ${row.row})`);
        }
        errors.push({ row: row.row, param: `legs[${row.row}].recipient`, code: plan.error.code, message: plan.error.message });
      } else {
        const { recipient, ...rest } = row;
        planned.push({ ...rest, id: this.deps.ids.next("po"), recipient: recipient.id, plan: plan.value });
      }
    }
    if (errors.length) return batchInvalid(errors);

    const total = rows.reduce((sum, r) => sum + r.amount, 0n);
    if (dryRun) {
      return ok({ object: "payout_batch_validation", valid: true, leg_count: rows.length, total_amount: formatAmount(total, asset) });
    }
    const batchHead: BatchHead = { asset, reference: parsedHead.value.reference ?? null, metadata: newMetadata(parsedHead.value.metadata), total };
    return this.acceptance.accept(ctx, batchHead, planned);
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<BatchObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => BATCHES.get(tx, ctx.accountId, id));
    return stored ? ok(presentBatch(this.deps.assets, stored.doc)) : fail("resource_missing", `No such payout batch: ${id}`, { param: "id" });
  }

  /** The account's batches, newest first (the list contract): `status`, created range, `search` (reference prefix or id). */
  list(ctx: RequestContext, params: ListBatchesParams = {}): PagedList<BatchObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, params: ListBatchesParams): Promise<Result<ListEnvelope<BatchObject>, ApiError>> {
    const parsed = listBatchesSchema.parse(params, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    return BATCHES.list(this.deps, ctx, parsed.value, (doc) => presentBatch(this.deps.assets, doc));
  }

  private validateRow(
    raw: unknown,
    index: number,
    asset: AssetDefinition,
    recipients: Map<string, RecipientDoc>,
    policy: ReturnType<typeof policyOf>,
  ): ValidRow | { errors: RowError[] } {
    const path = `legs[${index}]`;
    const parsed = batchLegSchema.parse(raw, path, this.deps.parse);
    if (parsed.isErr()) return { errors: [rowError(index, path, parsed.error)] };
    const leg = parsed.value;
    const errors: RowError[] = [];
    if (leg.row !== index) {
      errors.push(rowError(index, `${path}.row`, new ApiError("parameter_invalid", `row must be ${index}, the leg's position`)));
    }
    const amount = parseAmount(leg.amount, asset, `${path}.amount`);
    if (amount.isErr()) errors.push(rowError(index, `${path}.amount`, amount.error));
    const recipient = recipients.get(leg.recipient);
    if (!recipient) {
      errors.push(rowError(index, `${path}.recipient`, new ApiError("resource_missing", `No such recipient: ${leg.recipient}`)));
    } else {
      const payable = checkPayable(recipient, `${path}.recipient`);
      if (payable.isErr()) errors.push(rowError(index, `${path}.recipient`, payable.error));
      else if (!asset.chains.some((c) => recipient.chainAddresses[c] !== undefined)) {
        errors.push(
          rowError(
            index,
            `${path}.recipient`,
            new ApiError("recipient_address_missing", `Recipient ${recipient.id} has no address on a chain that carries ${asset.code}`),
          ),
        );
      }
    }
    let requiresApproval = false;
    if (amount.isOk()) {
      const approval = checkPolicy(policy, asset, amount.value, `${path}.amount`);
      if (approval.isErr()) errors.push(rowError(index, `${path}.amount`, approval.error));
      else requiresApproval = approval.value.requiresApproval;
    }
    if (errors.length || amount.isErr() || !recipient) return { errors };
    return { row: index, amount: amount.value, recipient, reference: leg.reference ?? null, metadata: newMetadata(leg.metadata), requiresApproval };
  }
}

function rowError(row: number, param: string, error: ApiError): RowError {
  return { row, param: error.param ?? param, code: error.code, message: error.message };
}

function batchInvalid(errors: RowError[]): Result<never, ApiError> {
  const rows = new Set(errors.map((e) => e.row)).size;
  return fail("batch_invalid", `${rows} row${rows === 1 ? "" : "s"} of the batch ${rows === 1 ? "is" : "are"} invalid; nothing was created`, {
    param: "legs",
    errors,
  });
}

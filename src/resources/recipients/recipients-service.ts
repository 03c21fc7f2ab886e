import type { Recipient } from "./recipient-objects";
import type { Out } from "../../api/response-schema";
import { err, ok, type Result } from "neverthrow";
import { addressProblem } from "../../chains/chain-address";
import { type ApiError, fail } from "../../errors";
import { type ListEnvelope, type PagedList, pagedList } from "../../lists/list-page";
import type { AssetRegistry } from "../../money/assets";
import { s, type Infer } from "../../validation/schema";
import { isoTime } from "../../validation/timestamp";
import { defineWork, type JobHandler } from "../../workers/due-work";
import { jobContext, type ModuleDeps, type RequestContext } from "../../engine/context";
import { DocStore } from "../../engine/doc-store";
import { applyMetadata, type Metadata, newMetadata, presentMetadata } from "../../metadata/metadata";
import type { UnitOfWork } from "../../engine/unit-of-work";
import {
  type CreateRecipientInput,
  type ListRecipientsParams,
  type UpdateRecipientInput,
  createRecipientSchema,
  listRecipientsSchema,
  updateRecipientSchema,
} from "./recipient-schemas";
import { canStep, startMachine, stepMachine, type ActionOf } from "../../engine/machine-step";
import { screeningMachine, type ScreeningStatus } from "./screening-machine";

export type { ScreeningStatus };

/** A recipient as stored. */
export interface RecipientDoc {
  id: string;
  name: string;
  chainAddresses: Record<string, string>;
  screening: boolean;
  screeningStatus: ScreeningStatus;
  /** Grows when the addresses change; screening verdicts are for one version. */
  version: number;
  /** Absent on documents written before metadata existed: none. */
  metadata?: Metadata;
  created: number;
}

/** The recipient object of docs/decisions.md §4. */
export type RecipientObject = Out<typeof Recipient>;

/** Recipients are searched by a prefix of their name (they have no reference) or by exact id. */
export const RECIPIENTS = new DocStore<RecipientDoc>({
  kind: "recipient",
  version: 1,
  status: (doc) => doc.screeningStatus,
  reference: (doc) => doc.name,
});

/** Asks the screening provider about one version of a recipient until a verdict comes. */
export const RECIPIENT_SCREEN = defineWork("recipients.screen", s.object({ recipient: s.string({ min: 1 }), version: s.integer({ min: 1 }) }));
/** How often the worker asks the provider while a verdict is pending. */
const SCREEN_POLL_MS = 1_000;

export function presentRecipient(doc: RecipientDoc): RecipientObject {
  return {
    id: doc.id,
    object: "recipient",
    name: doc.name,
    chain_addresses: doc.chainAddresses,
    screening: doc.screening,
    screening_status: doc.screeningStatus,
    metadata: presentMetadata(doc.metadata),
    created: isoTime(doc.created),
  };
}

/** Checks every chain name and address format; names the first bad one. */
export function checkAddresses(assets: AssetRegistry, addresses: Record<string, string>): Result<Record<string, string>, ApiError> {
  const entries = Object.entries(addresses);
  if (entries.length === 0) {
    return fail("parameter_invalid", "chain_addresses needs at least one address", { param: "chain_addresses" });
  }
  for (const [chain, address] of entries) {
    const param = `chain_addresses.${chain}`;
    const known = assets.knownChain(chain, param);
    if (known.isErr()) return err(known.error);
    const problem = addressProblem(known.value.family, address);
    if (problem) return fail("parameter_invalid", `${param} is not a valid ${chain} address: it ${problem}`, { param });
  }
  return ok(addresses);
}

/**
 * Recipients: registered once, screened once (again when their name or addresses change, since
 * the verdict was about those), referenced by id in payouts. A flagged recipient cannot be paid.
 */
export class RecipientsService {
  constructor(private readonly deps: Pick<ModuleDeps, "assets" | "clock" | "cursors" | "ids" | "parse" | "screening" | "storage">) {}

  async create(ctx: RequestContext, input: CreateRecipientInput): Promise<Result<RecipientObject, ApiError>> {
    const parsed = createRecipientSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const addresses = checkAddresses(this.deps.assets, parsed.value.chain_addresses);
    if (addresses.isErr()) return err(addresses.error);
    const screening = parsed.value.screening ?? false;
    const usable = this.screeningUsable(ctx, screening);
    if (usable.isErr()) return err(usable.error);
    return this.deps.storage.command(ctx, async (uow) => {
      const start = startMachine(screeningMachine, { screening });
      const doc: RecipientDoc = {
        id: this.deps.ids.next("rcp"),
        name: parsed.value.name,
        chainAddresses: addresses.value,
        screening,
        screeningStatus: start.value,
        version: 1,
        metadata: newMetadata(parsed.value.metadata),
        created: uow.now,
      };
      await RECIPIENTS.insert(uow.tx, ctx.accountId, uow.now, [doc]);
      this.carryOut(uow, doc, start.actions);
      return ok(presentRecipient(doc));
    });
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<RecipientObject, ApiError>> {
    const stored = await this.deps.storage.read((tx) => RECIPIENTS.get(tx, ctx.accountId, id));
    return stored ? ok(presentRecipient(stored.doc)) : missing(id);
  }

  async update(ctx: RequestContext, id: string, input: UpdateRecipientInput): Promise<Result<RecipientObject, ApiError>> {
    const parsed = updateRecipientSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    let addresses: Record<string, string> | undefined;
    if (parsed.value.chain_addresses !== undefined) {
      const checked = checkAddresses(this.deps.assets, parsed.value.chain_addresses);
      if (checked.isErr()) return err(checked.error);
      addresses = checked.value;
    }
    return this.deps.storage.command(ctx, async (uow) => {
      const stored = await RECIPIENTS.get(uow.tx, ctx.accountId, id, { lock: true });
      if (!stored) return missing(id);
      const doc: RecipientDoc = { ...stored.doc };
      if (parsed.value.name !== undefined) doc.name = parsed.value.name;
      if (parsed.value.metadata !== undefined) {
        const metadata = applyMetadata(doc.metadata, parsed.value.metadata);
        if (metadata.isErr()) return err(metadata.error);
        doc.metadata = metadata.value;
      }
      const changed =
        (addresses !== undefined && JSON.stringify(addresses) !== JSON.stringify(doc.chainAddresses)) ||
        (parsed.value.name !== undefined && parsed.value.name !== stored.doc.name);
      if (addresses !== undefined) doc.chainAddresses = addresses;
      if (changed) {
        doc.version += 1;
        // New addresses have not been screened: pay nobody on them until they are.
        const step = stepMachine(screeningMachine, screeningState(doc), { type: "changed" });
        doc.screeningStatus = step.value;
        this.carryOut(uow, doc, step.actions);
      }
      await RECIPIENTS.update(uow.tx, stored, doc, uow.now);
      return ok(presentRecipient(doc));
    });
  }

  async del(ctx: RequestContext, id: string): Promise<Result<{ id: string; object: "recipient"; deleted: true }, ApiError>> {
    return this.deps.storage.command(ctx, async (uow) => {
      const stored = await RECIPIENTS.get(uow.tx, ctx.accountId, id, { lock: true });
      if (!stored) return missing(id);
      await RECIPIENTS.delete(uow.tx, stored);
      return ok({ id, object: "recipient" as const, deleted: true as const });
    });
  }

  list(ctx: RequestContext, params: ListRecipientsParams = {}): PagedList<RecipientObject> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, input: ListRecipientsParams): Promise<Result<ListEnvelope<RecipientObject>, ApiError>> {
    const parsed = listRecipientsSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { screening_status, ...params } = parsed.value;
    return RECIPIENTS.list(this.deps, ctx, { ...params, ...(screening_status ? { status: screening_status } : {}) }, presentRecipient);
  }

  /** The worker that asks the screening provider until a verdict comes. */
  screeningHandler(): JobHandler<Infer<typeof RECIPIENT_SCREEN.payload>> {
    return async (job) => {
      const { recipient, version } = job.payload;
      const accountId = job.accountId;
      const stored = await this.deps.storage.read((tx) => RECIPIENTS.get(tx, accountId, recipient));
      if (!stored || stored.doc.version !== version || !awaitingVerdict(stored.doc)) return;
      const verdict = await this.deps.screening.screen({
        recipientId: recipient,
        version,
        name: stored.doc.name,
        addresses: stored.doc.chainAddresses,
      });
      if (verdict.status === "pending") return { kind: "reschedule", at: this.deps.clock.now() + SCREEN_POLL_MS };
      const result = await this.deps.storage.command(jobContext(job), async (uow) => {
        const current = await RECIPIENTS.get(uow.tx, accountId, recipient, { lock: true });
        if (!current || current.doc.version !== version || !awaitingVerdict(current.doc)) return ok(null);
        const step = stepMachine(screeningMachine, screeningState(current.doc), { type: "verdict", status: verdict.status });
        const doc: RecipientDoc = { ...current.doc, screeningStatus: step.value };
        await RECIPIENTS.update(uow.tx, current, doc, uow.now);
        this.carryOut(uow, doc, step.actions);
        return ok(null);
      });
      if (result.isErr()) throw result.error;
    };
  }

  private screeningUsable(ctx: RequestContext, screening: boolean): Result<true, ApiError> {
    if (screening && ctx.livemode && this.deps.screening.testModeOnly) {
      return fail("parameter_invalid", "Screening is not configured for live mode on this engine", { param: "screening" });
    }
    return ok(true);
  }

  /** Carries out what the screening machine decided, in the same unit of work. */
  private carryOut(uow: UnitOfWork, doc: RecipientDoc, actions: ActionOf<typeof screeningMachine>[]): void {
    for (const action of actions) {
      switch (action.type) {
        case "requestScreening":
          uow.schedule(RECIPIENT_SCREEN, { recipient: doc.id, version: doc.version }, { dedupeKey: `screen:${doc.id}:${doc.version}` });
          break;
        case "announce":
          uow.emit("recipient.screening_updated", presentRecipient(doc));
          break;
      }
    }
  }
}

/** The screening machine's state of a recipient. */
function screeningState(doc: RecipientDoc) {
  return { value: doc.screeningStatus, context: { screening: doc.screening } };
}

/** Whether a recipient waits for a screening verdict (its machine takes one). */
function awaitingVerdict(doc: RecipientDoc): boolean {
  return canStep(screeningMachine, screeningState(doc), { type: "verdict", status: "cleared" });
}

function missing<T>(id: string): Result<T, ApiError> {
  return fail("resource_missing", `No such recipient: ${id}`, { param: "id" });
}

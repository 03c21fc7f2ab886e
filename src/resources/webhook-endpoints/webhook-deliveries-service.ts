import type { WebhookDelivery, WebhookReplay } from "../../api/objects";
import type { Out } from "../../api/response-schema";
import { groupBy } from "../../collections/group-by";
import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../../errors";
import { WEBHOOK_DELIVERY, type DeliveryPayload, type DeliveryTrigger, type FanoutPayload } from "../../events/delivery-work";
import { toEnvelope } from "../../events/envelope";
import { expandObjects, idField, itemPaths, type Expandable } from "../../lists/expansion";
import { honoursRetryAfter, nextAttemptAt } from "../../events/retry-schedule";
import { signatureHeader } from "../../events/signing";
import { type ListEnvelope, type PagedList, listPage, pagedList } from "../../lists/list-page";
import type { DeliveryRequest, DeliveryResult } from "../../ports/delivery";
import type { DeliveryLogRecord, DueWorkRecord, EventRecord, StorageTx } from "../../ports/storage";
import { isoTime } from "../../validation/timestamp";
import { Batcher } from "../../workers/batcher";
import { newDueWork, type Job } from "../../workers/due-work";
import { runCommand } from "../../engine/command";
import type { EngineDeps, RequestContext } from "../../engine/context";
import {
  WEBHOOK_ENDPOINTS,
  signingSecrets,
  subscribes,
  type WebhookEndpointDoc,
  type WebhookEndpointsService,
} from "./webhook-endpoints-service";
import { type ListDeliveriesParams, type ReplayInput, listDeliveriesSchema, replaySchema } from "./webhook-endpoint-schemas";

/** What `expand[]` replaces in a delivery log entry: its event (kept 30 days, longer than the log). */
const DELIVERY_EXPANDABLE: Expandable = {
  fields: {
    event: idField("event", async ({ tx, accountId }, ids) => new Map((await tx.events.getMany(accountId, ids)).map((e) => [e.id, toEnvelope(e)]))),
  },
};

/** A claimed delivery attempt. */
type DeliveryJob = Job<DeliveryPayload>;

/** A delivery log entry as the API shows it (DECISIONS.md §4). */
export type WebhookDeliveryObject = Out<typeof WebhookDelivery>;

export type WebhookReplayObject = Out<typeof WebhookReplay>;

/** One attempt about to be sent: the request, and what the log will need. */
export interface PreparedAttempt {
  deliveryId: string;
  endpointId: string;
  event: EventRecord;
  attempt: number;
  trigger: DeliveryTrigger;
  request: DeliveryRequest;
}

/** What an attempt's result means (pure; DECISIONS.md §6). */
export interface AttemptOutcome {
  status: "succeeded" | "failed";
  responseStatus: number | null;
  error: string | null;
  /** The receiver answered 410: the endpoint is disabled for good. */
  gone: boolean;
  /** When to try again; null when done (acknowledged, gone, or out of attempts). */
  next: number | null;
}

export function attemptOutcome(
  result: DeliveryResult,
  attempt: number,
  firstAt: number,
  now: number,
  jitter: number,
): AttemptOutcome {
  if (result.kind === "response" && result.status >= 200 && result.status < 300) {
    return { status: "succeeded", responseStatus: result.status, error: null, gone: false, next: null };
  }
  if (result.kind === "response" && result.status === 410) {
    return { status: "failed", responseStatus: 410, error: "410 Gone: endpoint disabled", gone: true, next: null };
  }
  const retryAfter = result.kind === "response" && honoursRetryAfter(result.status) ? result.retryAfterSeconds : null;
  return {
    status: "failed",
    responseStatus: result.kind === "response" ? result.status : null,
    error: result.kind === "response" ? `HTTP ${result.status}` : result.error,
    gone: false,
    next: nextAttemptAt({ attempt, firstAt, now, retryAfterSeconds: retryAfter, jitter }),
  };
}

function presentDelivery(d: DeliveryLogRecord): WebhookDeliveryObject {
  // the log holds only what this service wrote: catalogue types, its triggers and outcomes
  return {
    id: d.id,
    object: "webhook_delivery",
    endpoint: d.endpointId,
    event: d.eventId,
    event_type: d.eventType as WebhookDeliveryObject["event_type"],
    attempt: d.attempt,
    trigger: d.trigger as WebhookDeliveryObject["trigger"],
    status: d.status as WebhookDeliveryObject["status"],
    response_status: d.responseStatus,
    latency_ms: d.latencyMs,
    error: d.error,
    created: isoTime(d.created),
    next_attempt_at: d.nextAttemptAt === null ? null : isoTime(d.nextAttemptAt),
  };
}

const ENDPOINT_PAGE = 200;
const REPLAY_PAGE = 1000;
/** Attempts read, or recorded, together in one transaction at most; and such transactions at once. */
const GROUP_COMMIT = { maxBatch: 64, parallel: 2 };

interface RecordRequest {
  job: DeliveryJob;
  prepared: PreparedAttempt;
  result: DeliveryResult;
}

/**
 * Webhook deliveries: the fan-out of events to subscribed endpoints, preparing and recording each
 * attempt (the worker in `workers/webhook-delivery.ts` sends it in between), the delivery log and
 * replay. Every attempt's log entry, its consequence for the endpoint (410) and the next step of
 * its work item commit in one transaction.
 */
export class WebhookDeliveriesService {
  /** Attempts about to be sent read their endpoint and event together (group commit). */
  private readonly reads = new Batcher((jobs: DeliveryJob[]) => this.readAll(jobs), GROUP_COMMIT);
  /** Attempts that came back are recorded together, one transaction for many. */
  private readonly writes = new Batcher((records: RecordRequest[]) => this.recordAll(records), GROUP_COMMIT);

  constructor(
    private readonly deps: EngineDeps,
    private readonly endpoints: WebhookEndpointsService,
  ) {}

  /** `GET /v1/webhook_endpoints/{id}/deliveries`: the attempts of the last 7 days, newest first. */
  list(ctx: RequestContext, endpointId: string, params: ListDeliveriesParams = {}): PagedList<WebhookDeliveryObject> {
    return pagedList(params, (p) => this.page(ctx, endpointId, p));
  }

  private async page(ctx: RequestContext, endpointId: string, input: ListDeliveriesParams): Promise<Result<ListEnvelope<WebhookDeliveryObject>, ApiError>> {
    const parsed = listDeliveriesSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const found = await this.deps.storage.transaction((tx) => this.endpoints.find(tx, ctx, endpointId));
    if (found.isErr()) return err(found.error);
    const { expand, ...params } = parsed.value;
    const paths = itemPaths(expand);
    const page = await listPage({
      codec: this.deps.cursors,
      accountId: ctx.accountId,
      list: `webhook_deliveries:${endpointId}`,
      params,
      ...(params.status !== undefined ? { status: params.status } : {}),
      ...(paths.length ? { extraBinding: { expand: paths } } : {}),
      fetch: (query) => this.deps.storage.transaction((tx) => tx.deliveries.list({ ...query, endpointId })),
      position: (row) => ({ created: row.created, id: row.id }),
      present: presentDelivery,
    });
    if (page.isOk()) await expandObjects(this.deps, ctx.accountId, DELIVERY_EXPANDABLE, page.value.data, paths);
    return page;
  }

  /**
   * `POST /v1/webhook_endpoints/{id}/replay`: schedules the events of `[from, to)` that the
   * endpoint subscribes to, oldest first, with their original ids (seed rule 3), each signed
   * afresh when sent. `from` may reach back as far as the delivery log (7 days).
   */
  async replay(ctx: RequestContext, endpointId: string, input: ReplayInput): Promise<Result<WebhookReplayObject, ApiError>> {
    const parsed = replaySchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const now = this.deps.clock.now();
    const from = parsed.value.from;
    const to = parsed.value.to ?? now;
    if (from < now - this.deps.config.deliveryLogRetentionMs) {
      return fail("replay_window_exceeded", "from is older than the delivery log's 7-day window", { param: "from" });
    }
    if (to <= from) return fail("parameter_invalid", "to must be later than from", { param: "to" });
    return runCommand(
      this.deps,
      ctx,
      async (uow) => {
        const found = await this.endpoints.find(uow.tx, ctx, endpointId);
        if (found.isErr()) return err(found.error);
        const endpoint = found.value.doc;
        if (endpoint.state !== "enabled") {
          return fail("parameter_invalid", "This endpoint is disabled; enable it before replaying", { param: "id" });
        }
        const events: string[] = [];
        let after: { created: number; id: string } | undefined;
        for (;;) {
          const page = await uow.tx.events.list({
            accountId: ctx.accountId,
            createdGte: from,
            createdLt: to,
            limit: REPLAY_PAGE,
            ...(after ? { after } : {}),
          });
          for (const e of page) if (subscribes(endpoint.enabledEvents, e.type)) events.push(e.id);
          if (page.length < REPLAY_PAGE) break;
          const last = page[page.length - 1]!;
          after = { created: last.created, id: last.id };
        }
        for (const event of events.reverse()) {
          uow.schedule(WEBHOOK_DELIVERY, { endpoint: endpoint.id, event, trigger: "replay" }, { group: endpoint.id });
        }
        return ok({ object: "webhook_replay", endpoint: endpoint.id, from: isoTime(from), to: isoTime(to), event_count: events.length });
      },
      { status: 202 },
    );
  }

  /**
   * Turns one transaction's events into one delivery item per subscribed, enabled endpoint, and
   * completes the fan-out item in the same transaction, so a crash can neither lose nor repeat it.
   */
  async fanOut(job: Job<FanoutPayload>): Promise<void> {
    const { events } = job.payload;
    const { accountId, livemode } = job;
    const now = this.deps.clock.now();
    const scheduled = await this.deps.storage.transaction(async (tx) => {
      const endpoints = await enabledEndpoints(tx, accountId);
      const work: DueWorkRecord[] = [];
      for (const event of events) {
        for (const endpoint of endpoints) {
          if (!subscribes(endpoint.enabledEvents, event.type)) continue;
          work.push(
            newDueWork(
              this.deps.ids,
              now,
              WEBHOOK_DELIVERY,
              { endpoint: endpoint.id, event: event.id, trigger: "scheduled" },
              { accountId, livemode },
              { group: endpoint.id },
            ),
          );
        }
      }
      if (work.length) await tx.work.enqueue(work);
      if (!(await tx.work.complete(job.id, job.leaseOwner))) throw new Error("the fan-out's lease was lost");
      return work.length;
    });
    if (scheduled) this.deps.wakeWorkers();
  }

  /**
   * Reads what attempt `job.attempts` needs and signs it afresh; null when there is nothing to
   * send (the endpoint was deleted or is disabled, or the event is gone).
   */
  async prepare(job: DeliveryJob): Promise<PreparedAttempt | null> {
    const [stored, event] = await this.reads.submit(job);
    const { endpoint: endpointId, trigger } = job.payload;
    if (!stored || stored.state !== "enabled" || !event) return null;
    const now = this.deps.clock.now();
    const deliveryId = this.deps.ids.next("dlv");
    const body = JSON.stringify(toEnvelope(event));
    return {
      deliveryId,
      endpointId,
      event,
      attempt: job.attempts,
      trigger,
      request: {
        url: stored.url,
        body,
        timeoutMs: this.deps.config.webhookTimeoutMs,
        headers: {
          "Content-Type": "application/json",
          "Service-Signature": signatureHeader(body, signingSecrets(stored, now), Math.floor(now / 1000)),
          "Service-Event": event.type,
          "Service-Delivery": deliveryId,
          "Service-Attempt": String(job.attempts),
        },
      },
    };
  }

  /**
   * Records an attempt: its log entry, the endpoint disabled after a 410, and the item completed
   * or released to its next attempt, in one transaction (shared with the attempts recorded at
   * the same moment). If the item's lease was lost meanwhile (another worker runs it now), the
   * entry is still recorded: the receiver did get the request.
   */
  async record(job: DeliveryJob, prepared: PreparedAttempt, result: DeliveryResult): Promise<AttemptOutcome> {
    return this.writes.submit({ job, prepared, result });
  }

  private async readAll(jobs: DeliveryJob[]): Promise<PromiseSettledResult<readonly [WebhookEndpointDoc | null, EventRecord | null]>[]> {
    const read = await this.deps.storage.transaction(async (tx) => {
      const endpoints = new Map<string, WebhookEndpointDoc | null>();
      const events = new Map<string, EventRecord>();
      for (const job of jobs) {
        const { endpoint: endpointId } = job.payload;
        const key = `${job.accountId}/${endpointId}`;
        if (!endpoints.has(key)) endpoints.set(key, (await WEBHOOK_ENDPOINTS.get(tx, job.accountId, endpointId))?.doc ?? null);
      }
      for (const [accountId, mine] of groupBy(jobs, (job) => job.accountId)) {
        const ids = [...new Set(mine.map((job) => job.payload.event))];
        for (const e of await tx.events.getMany(accountId, ids)) events.set(`${accountId}/${e.id}`, e);
      }
      return jobs.map((job) => {
        const { endpoint: endpointId, event: eventId } = job.payload;
        return [endpoints.get(`${job.accountId}/${endpointId}`)!, events.get(`${job.accountId}/${eventId}`) ?? null] as const;
      });
    });
    return read.map((value) => ({ status: "fulfilled", value }));
  }

  private async recordAll(requests: RecordRequest[]): Promise<PromiseSettledResult<AttemptOutcome>[]> {
    const now = this.deps.clock.now();
    const decided = requests.map((r) => ({
      ...r,
      outcome: attemptOutcome(r.result, r.prepared.attempt, r.job.created, now, this.jitter()),
    }));
    const write = async (items: typeof decided): Promise<void> =>
      this.deps.storage.transaction(async (tx) => {
        // endpoints first, in id order, so two batches never wait on each other's locks
        const gone = items.filter((i) => i.outcome.gone).sort((a, b) => (a.prepared.endpointId < b.prepared.endpointId ? -1 : 1));
        for (const { job, prepared } of gone) await this.endpoints.markGone(tx, job.accountId, prepared.endpointId, now);
        await tx.deliveries.insert(items.map(({ job, prepared, result, outcome }) => logEntry(job, prepared, result, outcome, now)));
        // every item of one batch was claimed by this process's runner: one owner, two statements
        for (const [owner, mine] of groupBy(items, (item) => item.job.leaseOwner)) {
          await tx.work.completeMany(mine.filter((i) => i.outcome.next === null).map((i) => i.job.id), owner);
          await tx.work.releaseMany(
            owner,
            mine
              .filter((i) => i.outcome.next !== null)
              .map((i) => ({ id: i.job.id, runAt: i.outcome.next!, lastError: i.outcome.error })),
          );
        }
      });
    try {
      await write(decided);
      return decided.map((d) => ({ status: "fulfilled", value: d.outcome }));
    } catch (e) {
      if (decided.length === 1) return [{ status: "rejected", reason: e }];
      // one bad item must not fail the others: record each alone; only the failures fail
      return Promise.all(
        decided.map((item) =>
          write([item]).then(
            (): PromiseSettledResult<AttemptOutcome> => ({ status: "fulfilled", value: item.outcome }),
            (reason: unknown): PromiseSettledResult<AttemptOutcome> => ({ status: "rejected", reason }),
          ),
        ),
      );
    }
  }

  /** A uniform draw in [0, 1) from the engine's randomness (seeded in simulations). */
  private jitter(): number {
    const [a = 0, b = 0] = this.deps.random(2);
    return (a * 256 + b) / 65_536;
  }
}

function logEntry(job: DeliveryJob, prepared: PreparedAttempt, result: DeliveryResult, outcome: AttemptOutcome, now: number): DeliveryLogRecord {
  return {
    accountId: job.accountId,
    id: prepared.deliveryId,
    endpointId: prepared.endpointId,
    eventId: prepared.event.id,
    eventType: prepared.event.type,
    attempt: prepared.attempt,
    trigger: prepared.trigger,
    status: outcome.status,
    responseStatus: outcome.responseStatus,
    latencyMs: result.latencyMs,
    error: outcome.error,
    created: now,
    nextAttemptAt: outcome.next,
  };
}

/** Every enabled endpoint of the account, read a page at a time. */
async function enabledEndpoints(tx: StorageTx, accountId: string): Promise<WebhookEndpointDoc[]> {
  const out: WebhookEndpointDoc[] = [];
  let after: { created: number; id: string } | undefined;
  for (;;) {
    const page = await tx.resources.list({
      accountId,
      kind: WEBHOOK_ENDPOINTS.type.kind,
      status: "enabled",
      limit: ENDPOINT_PAGE,
      ...(after ? { after } : {}),
    });
    out.push(...page.map((r) => WEBHOOK_ENDPOINTS.read(r)));
    if (page.length < ENDPOINT_PAGE) return out;
    const last = page[page.length - 1]!;
    after = { created: last.created, id: last.id };
  }
}

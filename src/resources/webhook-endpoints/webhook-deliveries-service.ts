import type { WebhookDelivery, WebhookReplay } from "./webhook-endpoint-objects";
import type { Out } from "../../api/response-schema";
import { BoundedMap } from "../../collections/bounded-map";
import { groupBy } from "../../collections/group-by";
import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../../errors";
import { WEBHOOK_DELIVERY, deliveryChunks, type DeliveryPayload, type DeliveryTrigger, type FanoutPayload } from "../../events/delivery-work";
import { toEnvelope } from "../../events/envelope";
import { expandObjects, idField, itemPaths, type Expandable } from "../../lists/expansion";
import { honoursRetryAfter, nextAttemptAt } from "../../events/retry-schedule";
import { signatureHeader } from "../../events/signing";
import { type ListEnvelope, type PagedList, listPage, pagedList } from "../../lists/list-page";
import type { DeliveryRequest, DeliveryResult } from "../../ports/delivery";
import type { DeliveryLogRecord, DueWorkRecord, EventRecord, StorageTx } from "../../ports/storage";
import { isoTime } from "../../validation/timestamp";
import { Batcher, togetherOrApart } from "../../workers/batcher";
import { PermanentWorkError, newDueWork, toJob, type Job } from "../../workers/due-work";
import type { WorkOutcome } from "../../workers/runner";
import type { DeliveryOutcomeKind } from "../../ports/observer";
import type { ModuleDeps, ReadTx, RequestContext } from "../../engine/context";
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

/** A claimed delivery item: some events to one endpoint. */
type DeliveryJob = Job<DeliveryPayload>;

/** A delivery log entry as the API shows it (DECISIONS.md §4). */
export type WebhookDeliveryObject = Out<typeof WebhookDelivery>;

export type WebhookReplayObject = Out<typeof WebhookReplay>;

/**
 * A delivery item as read before its attempts: its endpoint as stored then, the events still
 * kept (in the item's order), and the attempt number they go out under.
 */
export interface PreparedDelivery {
  job: DeliveryJob;
  endpoint: WebhookEndpointDoc;
  /** The endpoint's revision in this process before it was read (`WebhookEndpointsService.revision`). */
  revision: number;
  events: EventRecord[];
  attempt: number;
  /** When the events were first scheduled: their 24 hours run from there. */
  first: number;
  trigger: DeliveryTrigger;
}

/** One attempt about to be sent: the request, and what the log will need. */
export interface PreparedAttempt {
  deliveryId: string;
  endpointId: string;
  event: EventRecord;
  attempt: number;
  trigger: DeliveryTrigger;
  request: DeliveryRequest;
}

/** An attempt that came back: what it was, what the receiver did, what that means, and when. */
export interface SentAttempt {
  prepared: PreparedAttempt;
  result: DeliveryResult;
  outcome: AttemptOutcome;
  at: number;
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

/** `jitter` draws a uniform number in [0, 1), only for a failure (a success needs none). */
export function attemptOutcome(
  result: DeliveryResult,
  attempt: number,
  firstAt: number,
  now: number,
  jitter: () => number,
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
    next: nextAttemptAt({ attempt, firstAt, now, retryAfterSeconds: retryAfter, jitter: jitter() }),
  };
}

/** An attempt's outcome as the observer port names it. */
function observedOutcome(outcome: AttemptOutcome): DeliveryOutcomeKind {
  if (outcome.status === "succeeded") return "succeeded";
  if (outcome.gone) return "gone";
  return outcome.responseStatus !== null ? "http_error" : "network_error";
}

/** The item's events and numbers, from either shape of its payload (see `WEBHOOK_DELIVERY`). */
function deliveryOf(job: DeliveryJob): { events: string[]; attempt: number; first: number } {
  const { events, event, attempt = 1, first = job.created } = job.payload;
  const ids = events ?? (event !== undefined ? [event] : null);
  if (!ids) throw new PermanentWorkError(`${job.kind} ${job.id} names no event`);
  // every claim before this one may have sent its attempts: their numbers are spent
  return { events: ids, attempt: attempt + job.attempts - 1, first };
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
/**
 * Items read, or recorded, together in one transaction at most (on a server; on
 * storage that runs one transaction at a time, few enough that a request never waits long behind
 * one: an item records up to 64 attempts), and such transactions at once.
 */
function groupCommit(deps: ModuleDeps, oneAtATime: number): { maxBatch: number; parallel: number } {
  return { maxBatch: deps.storage.capabilities.concurrentTransactions ? 64 : oneAtATime, parallel: 2 };
}
/**
 * Of an item's lease, what is kept for recording its attempts after the last one: an item starts
 * no attempt that could end later than its lease minus this (the lane's lease is at least the
 * timeout plus this, so the first attempt always fits).
 */
export const RECORD_MARGIN_MS = 30_000;

/**
 * Of 256, the chance that a slot hands itself on to its endpoint's next item rather than going
 * back to the lane's claims (which take the oldest due items of every endpoint): a slot runs 8
 * items in a row on average, so an endpoint with a backlog never keeps a slot from the others for
 * long, and the slots of one burst go back at different moments, not all at once (measured: when
 * every slot went back after exactly 8, in-flight attempts dipped by half at each return).
 */
const HAND_ON = 224;
/** Events kept after a read for the other endpoints' items (about a few fan-outs' worth). */
const RECENT_EVENTS = 4096;
/**
 * Fan-outs running at once in a process: their own lane, so events reach their endpoints while a
 * batch's chunks fill the default lane.
 */
export const FAN_OUTS_AT_ONCE = 4;
/** Items handed on and not yet run, kept at most (the runner runs them at once). */
const HANDED_OVER = 1024;

/** An item handed on to a slot, as read for the lease it was handed on with. */
interface HandedOver {
  leaseUntil: number;
  attempts: number;
  /** Null: nothing to deliver (its endpoint is gone or disabled, or its events are). */
  delivery: PreparedDelivery | null;
}

interface RecordRequest {
  delivery: PreparedDelivery;
  sent: SentAttempt[];
  /** Events the item did not send (it ran out of lease, or its endpoint changed): they go on in a new item. */
  rest: string[];
  /** Whether the item's slot may go on to the endpoint's next due item (see `HAND_ON`). */
  handOver: boolean;
}

/** What recording an item yields: the item its slot was handed on to, read already, if any. */
interface Recorded {
  next: DueWorkRecord | null;
}


/** How a delivery item's work runs: the lane's lease of an item (`WorkLane.leaseMs`). */
export interface DeliveryOptions {
  leaseMs: number;
}

/**
 * Webhook deliveries: the fan-out of events to subscribed endpoints, delivery items (read, each
 * event signed afresh and sent, the outcomes recorded), the delivery log and replay. An item's
 * log entries, its consequence for the endpoint (410), its completion, the items that carry its
 * failures and leftovers on, and the hand-over of its slot to the endpoint's next item commit
 * in one transaction, shared with the items that finished at the same moment.
 */
export class WebhookDeliveriesService {
  /** Items about to send read their endpoint and events together (group commit). */
  private readonly reads: Batcher<DeliveryJob, Read>;
  /** Fan-outs that run at the same moment share one transaction. */
  private readonly fanOuts: Batcher<Job<FanoutPayload>, void>;
  /** Items that finished sending are recorded together, one transaction for many. */
  private readonly writes: Batcher<RecordRequest, Recorded>;
  /** Endpoints that answered 410 to this process: nothing more is sent to them from here. */
  private readonly gone = new Set<string>();
  /** Events read lately (see `readItems`), and the bodies of those still held. */
  private readonly recentEvents = new BoundedMap<string, EventRecord>(RECENT_EVENTS);
  private readonly bodies = new WeakMap<EventRecord, string>();
  /**
   * Items handed on to a slot, as read in the transaction that handed them on, by id, until the
   * runner runs them (at once). Bounded: an item the runner gave back instead (it was stopping)
   * is never run from here, and one claimed again later has another lease, so it is read afresh.
   */
  private readonly handedOver = new BoundedMap<string, HandedOver>(HANDED_OVER);

  constructor(
    private readonly deps: ModuleDeps,
    private readonly endpoints: WebhookEndpointsService,
    private readonly options: DeliveryOptions,
  ) {
    this.reads = new Batcher((jobs) => this.readAll(jobs), groupCommit(deps, 2));
    // every fan-out the lane runs at once may share one transaction
    this.fanOuts = new Batcher((jobs) => this.fanOutAll(jobs), { maxBatch: FAN_OUTS_AT_ONCE, parallel: 2 });
    this.writes = new Batcher((records) => this.recordAll(records), groupCommit(deps, 2));
  }

  /** `GET /v1/webhook_endpoints/{id}/deliveries`: the attempts of the last 7 days, newest first. */
  list(ctx: RequestContext, endpointId: string, params: ListDeliveriesParams = {}): PagedList<WebhookDeliveryObject> {
    return pagedList(params, (p) => this.page(ctx, endpointId, p));
  }

  private async page(ctx: RequestContext, endpointId: string, input: ListDeliveriesParams): Promise<Result<ListEnvelope<WebhookDeliveryObject>, ApiError>> {
    const parsed = listDeliveriesSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const found = await this.deps.storage.read((tx) => this.endpoints.find(tx, ctx, endpointId));
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
      fetch: (query) => this.deps.storage.read((tx) => tx.deliveries.list({ ...query, endpointId })),
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
    const parsed = replaySchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const now = this.deps.clock.now();
    const from = parsed.value.from;
    const to = parsed.value.to ?? now;
    if (from < now - this.deps.config.deliveryLogRetentionMs) {
      return fail("replay_window_exceeded", "from is older than the delivery log's 7-day window", { param: "from" });
    }
    if (to <= from) return fail("parameter_invalid", "to must be later than from", { param: "to" });
    return this.deps.storage.command(
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
        for (const chunk of deliveryChunks(events.reverse())) {
          uow.schedule(WEBHOOK_DELIVERY, { endpoint: endpoint.id, events: chunk, trigger: "replay" }, { group: endpoint.id });
        }
        return ok({ object: "webhook_replay", endpoint: endpoint.id, from: isoTime(from), to: isoTime(to), event_count: events.length });
      },
      { status: 202 },
    );
  }

  /**
   * Turns one transaction's events into delivery items for each subscribed, enabled endpoint (up
   * to `EVENTS_PER_DELIVERY` events each), and completes the fan-out item in the same
   * transaction, so a crash can neither lose nor repeat it. Fan-outs that run at the same moment
   * share one transaction (group commit).
   */
  async fanOut(job: Job<FanoutPayload>): Promise<void> {
    await this.fanOuts.submit(job);
  }

  private async fanOutAll(jobs: Job<FanoutPayload>[]): Promise<PromiseSettledResult<void>[]> {
    const write = async (mine: Job<FanoutPayload>[]): Promise<void[]> => {
      const now = this.deps.clock.now();
      await this.deps.storage.engineWork(async (tx) => {
        const completed = new Set<string>();
        for (const [owner, theirs] of groupBy(mine, (job) => job.leaseOwner)) {
          for (const id of await tx.work.completeMany(theirs.map((job) => job.id), owner)) completed.add(id);
        }
        const lost = mine.find((job) => !completed.has(job.id));
        if (lost) throw new Error(`the lease of fan-out ${lost.id} was lost`);
        const work: DueWorkRecord[] = [];
        for (const [accountId, theirs] of groupBy(mine, (job) => job.accountId)) {
          const endpoints = await enabledEndpoints(tx, accountId);
          for (const { payload, livemode } of theirs) {
            for (const endpoint of endpoints) {
              const events = payload.events.filter((event) => subscribes(endpoint.enabledEvents, event.type)).map((event) => event.id);
              for (const chunk of deliveryChunks(events)) {
                const payload = { endpoint: endpoint.id, events: chunk, trigger: "scheduled" as const };
                work.push(newDueWork(this.deps.ids, now, WEBHOOK_DELIVERY, payload, { accountId, livemode }, { group: endpoint.id }));
              }
            }
          }
        }
        if (work.length) await tx.work.enqueue(work);
        return work.length;
      }, { wakeWhen: (scheduled) => scheduled > 0 });
      return mine.map(() => undefined);
    };
    // a fan-out whose lease was lost fails alone: the others commit without it
    return togetherOrApart(jobs, write);
  }

  /**
   * Runs one delivery item: reads it, sends its events one after the other, each signed afresh
   * (so the item holds one of its endpoint's slots, never more), and records every attempt. It
   * stops early when its endpoint answers 410 (the rest is dropped), when the endpoint changed in
   * this process meanwhile, or when the next attempt could outlast its lease (the rest goes on in
   * a new item, under the same attempt number). The transaction that records it hands its slot
   * on to the endpoint's next due item, which the runner runs at once.
   */
  async deliver(job: DeliveryJob): Promise<WorkOutcome> {
    const handed = this.handedOver.get(job.id);
    this.handedOver.delete(job.id);
    const same = handed !== undefined && handed.leaseUntil === job.leaseUntil && handed.attempts === job.attempts;
    const delivery = same ? handed.delivery && { ...handed.delivery, job } : await this.prepare(job);
    if (!delivery) return { kind: "done" };
    const { endpoint, events } = delivery;
    const timeout = this.deps.config.webhookTimeoutMs;
    const sent: SentAttempt[] = [];
    let rest: string[] = [];
    for (let i = 0; i < events.length; i++) {
      if (this.gone.has(endpoint.id)) break;
      const late = i > 0 && this.deps.clock.now() + timeout + RECORD_MARGIN_MS > job.leaseUntil;
      if (late || this.endpoints.revision(endpoint.id) !== delivery.revision) {
        rest = events.slice(i).map((e) => e.id);
        break;
      }
      const prepared = this.attempt(delivery, events[i]!);
      const result = await this.deps.delivery.send(prepared.request);
      const at = this.deps.clock.now();
      const outcome = attemptOutcome(result, prepared.attempt, delivery.first, at, this.jitter);
      sent.push({ prepared, result, outcome, at });
      if (outcome.gone) this.gone.add(endpoint.id); // every item of the endpoint stops here
    }
    const [draw = 0] = this.deps.random(1);
    const { next } = await this.writes.submit({ delivery, sent, rest, handOver: draw < HAND_ON });
    for (const { prepared, result, outcome } of sent) {
      this.deps.observer.deliveryAttempted({
        endpoint: prepared.endpointId,
        eventType: prepared.event.type,
        outcome: observedOutcome(outcome),
        responseStatus: outcome.responseStatus,
        latencyMs: result.latencyMs,
        attempt: prepared.attempt,
      });
    }
    return next ? { kind: "settled", next } : { kind: "settled" };
  }

  /**
   * Reads what the item needs (group commit); null when there is nothing to send: the endpoint
   * was deleted or is disabled, or every event is gone (past retention).
   */
  async prepare(job: DeliveryJob): Promise<PreparedDelivery | null> {
    deliveryOf(job); // a payload without events fails here, alone, not in the shared read
    const revision = this.endpoints.revision(job.payload.endpoint);
    const [endpoint, found] = await this.reads.submit(job);
    return prepared(job, revision, endpoint, found);
  }

  /** One attempt of `event` in `delivery`, signed afresh now: a new `t` and a new `dlv_` id. */
  attempt(delivery: PreparedDelivery, event: EventRecord): PreparedAttempt {
    const now = this.deps.clock.now();
    const deliveryId = this.deps.ids.next("dlv");
    let body = this.bodies.get(event);
    if (body === undefined) this.bodies.set(event, (body = JSON.stringify(toEnvelope(event))));
    const { endpoint, attempt } = delivery;
    return {
      deliveryId,
      endpointId: endpoint.id,
      event,
      attempt,
      trigger: delivery.trigger,
      request: {
        url: endpoint.url,
        body,
        timeoutMs: this.deps.config.webhookTimeoutMs,
        headers: {
          "Content-Type": "application/json",
          "Service-Signature": signatureHeader(body, signingSecrets(endpoint, now), Math.floor(now / 1000)),
          "Service-Event": event.type,
          "Service-Delivery": deliveryId,
          "Service-Attempt": String(attempt),
        },
      },
    };
  }

  private async readAll(jobs: DeliveryJob[]): Promise<PromiseSettledResult<Read>[]> {
    const read = await this.deps.storage.read((tx) => readItems(tx, jobs, this.recentEvents));
    return read.map((value) => ({ status: "fulfilled", value }));
  }

  /**
   * Records items' attempts, in one transaction: their log entries, endpoints disabled after a
   * 410, the items completed, each failed event in an item of its own due at its next attempt,
   * each item's `rest` in a new item due now, and the slots handed on to the endpoints' next due
   * items (read here, ready to send). If an item's lease was lost meanwhile (another worker runs
   * it now, and will carry its events on), only its entries are recorded: the receiver did get
   * those requests.
   */
  private async recordAll(requests: RecordRequest[]): Promise<PromiseSettledResult<Recorded>[]> {
    const write = async (items: RecordRequest[]): Promise<Recorded[]> => {
      const revisions = new Map(items.map((i) => [i.delivery.endpoint.id, this.endpoints.revision(i.delivery.endpoint.id)]));
      const { recorded, handed } = await this.deps.storage.engineWork(async (tx) => {
        const now = this.deps.clock.now();
        // endpoints first, in id order, so two batches never wait on each other's locks
        const gone = [...new Map(
          items.flatMap(({ delivery, sent }) => (sent.some((s) => s.outcome.gone) ? [[delivery.endpoint.id, delivery.job.accountId] as const] : [])),
        )].sort(([a], [b]) => (a < b ? -1 : 1));
        for (const [endpointId, accountId] of gone) await this.endpoints.markGone(tx, accountId, endpointId, now);
        // every item of one batch was claimed by this process's runner: one owner, one statement
        const completed = new Set<string>();
        for (const [owner, mine] of groupBy(items, (item) => item.delivery.job.leaseOwner)) {
          for (const id of await tx.work.completeMany(mine.map((i) => i.delivery.job.id), owner)) completed.add(id);
        }
        await tx.deliveries.insert(items.flatMap(({ delivery, sent }) => sent.map((s) => logEntry(delivery.job, s))));
        const follow = items.filter((i) => completed.has(i.delivery.job.id)).flatMap((i) => this.followUps(i, now));
        if (follow.length) await tx.work.enqueue(follow);
        // each completed item's slot goes on to its endpoint's next due item, read here already
        const handing = items.filter((i) => i.handOver && completed.has(i.delivery.job.id) && !gone.some(([id]) => id === i.delivery.endpoint.id));
        const next = new Map<RecordRequest, DueWorkRecord>();
        const handed = new Map<string, HandedOver>();
        for (const [owner, mine] of groupBy(handing, (item) => item.delivery.job.leaseOwner)) {
          const taken = await tx.work.takeNext({
            kind: WEBHOOK_DELIVERY.kind,
            groups: mine.map((i) => i.delivery.endpoint.id),
            owner,
            now,
            leaseUntil: now + this.options.leaseMs,
          });
          const byGroup = groupBy(taken, (w) => w.group!);
          for (const item of mine) {
            const record = byGroup.get(item.delivery.endpoint.id)?.shift();
            if (record) next.set(item, record);
          }
          const jobs = taken.flatMap((record) => {
            try {
              const job = toJob(WEBHOOK_DELIVERY, record, this.deps.parse);
              deliveryOf(job);
              return [job];
            } catch {
              return []; // the runner marks it dead when it runs it
            }
          });
          const read = await readItems(tx, jobs, this.recentEvents);
          jobs.forEach((job, i) => {
            const [endpoint, found] = read[i]!;
            const delivery = prepared(job, revisions.get(job.payload.endpoint) ?? this.endpoints.revision(job.payload.endpoint), endpoint, found);
            handed.set(job.id, { leaseUntil: job.leaseUntil, attempts: job.attempts, delivery });
          });
        }
        return {
          recorded: items.map((item): Recorded => ({ next: next.get(item) ?? null })),
          handed,
          due: follow.some((w) => w.runAt <= now),
        };
      }, { wakeWhen: ({ due }) => due });
      for (const [id, delivery] of handed) this.handedOver.set(id, delivery);
      return recorded;
    };
    // one bad item must not fail the others
    return togetherOrApart(requests, write);
  }

  /** The items that carry an item's events on: each failure alone at its next slot, and the rest now. */
  private followUps({ delivery, sent, rest }: RecordRequest, now: number): DueWorkRecord[] {
    const { job, endpoint, first, trigger } = delivery;
    const owner = { accountId: job.accountId, livemode: job.livemode };
    const item = (events: string[], attempt: number, runAt: number) =>
      newDueWork(this.deps.ids, now, WEBHOOK_DELIVERY, { endpoint: endpoint.id, events, trigger, attempt, first }, owner, {
        runAt,
        group: endpoint.id,
      });
    const out = sent.flatMap(({ prepared, outcome }) =>
      outcome.next === null ? [] : [item([prepared.event.id], prepared.attempt + 1, outcome.next)],
    );
    // an endpoint that answered 410 gets nothing more; the rest of another endpoint's item goes on
    if (rest.length && !sent.some((s) => s.outcome.gone)) out.push(item(rest, delivery.attempt, now));
    return out;
  }

  /** A uniform draw in [0, 1) from the engine's randomness (seeded in simulations). */
  private readonly jitter = (): number => {
    const [a = 0, b = 0] = this.deps.random(2);
    return (a * 256 + b) / 65_536;
  };
}

/** An item's endpoint as stored (null when deleted) and its events that are still kept, by id. */
type Read = readonly [WebhookEndpointDoc | null, Map<string, EventRecord>];

/**
 * What `jobs` need, read in `tx`: each job's endpoint and events (one statement per account for
 * each; none for events `recent` holds: an event never changes once written, so the endpoints
 * of one event share one read, and one body).
 */
async function readItems(tx: ReadTx, jobs: readonly DeliveryJob[], recent: BoundedMap<string, EventRecord>): Promise<Read[]> {
  const endpoints = new Map<string, Map<string, WebhookEndpointDoc>>();
  const events = new Map<string, Map<string, EventRecord>>();
  for (const [accountId, mine] of groupBy(jobs, (job) => job.accountId)) {
    endpoints.set(accountId, await WEBHOOK_ENDPOINTS.getMany(tx, accountId, [...new Set(mine.map((job) => job.payload.endpoint))]));
    const found = new Map<string, EventRecord>();
    const missing: string[] = [];
    for (const id of new Set(mine.flatMap((job) => deliveryOf(job).events))) {
      const event = recent.get(`${accountId}/${id}`);
      if (event) found.set(id, event);
      else missing.push(id);
    }
    for (const event of missing.length ? await tx.events.getMany(accountId, missing) : []) {
      recent.set(`${accountId}/${event.id}`, event);
      found.set(event.id, event);
    }
    events.set(accountId, found);
  }
  return jobs.map((job) => [endpoints.get(job.accountId)!.get(job.payload.endpoint) ?? null, events.get(job.accountId)!] as const);
}

/** The item ready to send, or null when there is nothing to send (see `prepare`). */
function prepared(job: DeliveryJob, revision: number, endpoint: WebhookEndpointDoc | null, found: Map<string, EventRecord>): PreparedDelivery | null {
  const { events: ids, attempt, first } = deliveryOf(job);
  if (!endpoint || endpoint.state !== "enabled") return null;
  const events = ids.flatMap((id) => found.get(id) ?? []);
  if (!events.length) return null;
  return { job, endpoint, revision, events, attempt, first, trigger: job.payload.trigger };
}

function logEntry(job: DeliveryJob, { prepared, result, outcome, at }: SentAttempt): DeliveryLogRecord {
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
    created: at,
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

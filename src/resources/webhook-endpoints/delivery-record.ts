import { BoundedMap } from "../../collections/bounded-map";
import { groupBy } from "../../collections/group-by";
import { WEBHOOK_DELIVERY } from "../../events/delivery-work";
import type { IdGenerator } from "../../ids";
import type { DeliveryLogRecord, DueWorkRecord } from "../../ports/storage";
import { newDueWork, toJob, traceOnly } from "../../workers/due-work";
import { GroupCommit } from "../../workers/group-commit";
import type { ModuleDeps } from "../../engine/context";
import { deliveryOf, type DeliveryJob, type DeliveryReads, type PreparedDelivery } from "./delivery-read";
import type { SentAttempt } from "./delivery-send";
import { EndpointHealth } from "./endpoint-health";
import type { WebhookEndpointsService } from "./webhook-endpoints-service";

/** What an item leaves to be recorded once it stopped sending. */
export interface SentItem {
  delivery: PreparedDelivery;
  sent: SentAttempt[];
  /** Events the item did not send (it ran out of lease, or its endpoint changed): they go on in a new item. */
  rest: string[];
  /** When the rest goes on (default now): the moment a rate-limited endpoint's window frees a slot. */
  restAt?: number;
}

interface RecordRequest extends SentItem {
  /** Whether the item's slot may go on to the endpoint's next due item (see `HAND_ON`). */
  handOver: boolean;
}

/** An item handed on to a slot, as read for the lease it was handed on with. */
interface HandedOn {
  leaseUntil: number;
  attempts: number;
  /** Null: nothing to deliver (its endpoint is gone or disabled, or its events are). */
  delivery: PreparedDelivery | null;
}

/**
 * Of 256, the chance that a slot hands itself on to its endpoint's next item rather than going
 * back to the lane's claims (which take the oldest due items of every endpoint): a slot runs 8
 * items in a row on average, so an endpoint with a backlog never keeps a slot from the others for
 * long, and the slots of one burst go back at different moments, not all at once (measured: when
 * every slot went back after exactly 8, in-flight attempts dipped by half at each return).
 */
const HAND_ON = 224;
/** Items handed on and not yet run, kept at most (the runner runs them at once). */
const HANDED_ON = 1024;

/** An attempt's delivery log entry (docs/decisions.md §4). */
export function logEntry(job: DeliveryJob, { prepared, result, outcome, at }: SentAttempt): DeliveryLogRecord {
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

/**
 * The items that carry an item's events on: each failure alone, due at its next slot under the
 * next attempt number, and the rest under the same one, now or at its `restAt` (none after a 410).
 */
export function followUps({ delivery, sent, rest, restAt }: SentItem, now: number, ids: IdGenerator): DueWorkRecord[] {
  const { job, endpoint, first, trigger } = delivery;
  const owner = { accountId: job.accountId, livemode: job.livemode, request: traceOnly(job.request) };
  const item = (events: string[], attempt: number, runAt: number) =>
    newDueWork(ids, now, WEBHOOK_DELIVERY, { endpoint: endpoint.id, events, trigger, attempt, first }, owner, {
      runAt,
      group: endpoint.id,
    });
  const out = sent.flatMap(({ prepared, outcome }) => (outcome.next === null ? [] : [item([prepared.event.id], prepared.attempt + 1, outcome.next)]));
  // an endpoint that answered 410 gets nothing more; the rest of another endpoint's item goes on
  if (rest.length && !sent.some((s) => s.outcome.gone)) out.push(item(rest, delivery.attempt, restAt ?? now));
  return out;
}

/**
 * Recording sent items, group-committed: one transaction for the items that finished at the
 * same moment holds their log entries, endpoints disabled after a 410, the items completed, the
 * items that carry their failures and leftovers on, and the hand-over of each slot to its
 * endpoint's next due item, read there already (kept here until the runner runs it, at once).
 */
export class DeliveryRecord {
  private readonly writes: GroupCommit<RecordRequest, DueWorkRecord | null>;
  /**
   * Items handed on to a slot, as read in the transaction that handed them on, by id, until the
   * runner runs them (at once). Bounded: an item the runner gave back instead (it was stopping)
   * is never run from here, and one claimed again later has another lease, so it is read afresh.
   */
  private readonly handedOn = new BoundedMap<string, HandedOn>(HANDED_ON);
  /** Disables endpoints whose every delivery failed for the disable window. */
  private readonly health: EndpointHealth;

  constructor(
    private readonly deps: Pick<ModuleDeps, "clock" | "config" | "ids" | "parse" | "random" | "storage">,
    private readonly endpoints: WebhookEndpointsService,
    private readonly reads: DeliveryReads,
    /** The delivery lane's lease, given to the items handed on. */
    private readonly leaseMs: number,
  ) {
    // an item records up to 64 attempts: few items per transaction on storage that runs one at a time
    this.writes = new GroupCommit(deps.storage.capabilities, { maxBatch: 64, oneAtATime: 2, parallel: 2 }, (items) => this.write(items));
    this.health = new EndpointHealth(deps, endpoints);
  }

  /** Records an item; yields the item its slot was handed on to, if any, for the runner to run next. */
  async record(item: SentItem): Promise<DueWorkRecord | null> {
    const [draw = 0] = this.deps.random(1);
    // an item held back by its endpoint's rate limit hands its slot to no item of that endpoint
    return this.writes.submit({ ...item, handOver: draw < HAND_ON && item.restAt === undefined });
  }

  /**
   * The item `job` as read when its slot was handed on to it; undefined when it was not handed on
   * here for this very lease (then it is read afresh).
   */
  takeHandedOn(job: DeliveryJob): PreparedDelivery | null | undefined {
    const handed = this.handedOn.get(job.id);
    this.handedOn.delete(job.id);
    if (handed === undefined || handed.leaseUntil !== job.leaseUntil || handed.attempts !== job.attempts) return undefined;
    return handed.delivery && { ...handed.delivery, job };
  }

  /**
   * Records items in one transaction. If an item's lease was lost meanwhile (another worker runs
   * it now, and will carry its events on), only its entries are recorded: the receiver did get
   * those requests.
   */
  private async write(items: RecordRequest[]): Promise<(DueWorkRecord | null)[]> {
    const revisions = new Map(items.map((i) => [i.delivery.endpoint.id, this.endpoints.revision(i.delivery.endpoint.id)]));
    const { next, handed } = await this.deps.storage.engineWork(
      async (tx) => {
        const now = this.deps.clock.now();
        const gone = goneEndpoints(items);
        // every item of one batch was claimed by this process's runner: one owner, one statement
        const completed = new Set<string>();
        for (const [owner, mine] of groupBy(items, (item) => item.delivery.job.leaseOwner)) {
          for (const id of await tx.work.completeMany(
            mine.map((i) => i.delivery.job.id),
            owner,
          ))
            completed.add(id);
        }
        await tx.deliveries.insert(items.flatMap(({ delivery, sent }) => sent.map((s) => logEntry(delivery.job, s))));
        const follow = items.filter((i) => completed.has(i.delivery.job.id)).flatMap((i) => followUps(i, now, this.deps.ids));
        if (follow.length) await tx.work.enqueue(follow);
        // each completed item's slot goes on to its endpoint's next due item, read here already
        const handing = items.filter((i) => i.handOver && completed.has(i.delivery.job.id) && !gone.some(([id]) => id === i.delivery.endpoint.id));
        const next = new Map<RecordRequest, DueWorkRecord>();
        const handed = new Map<string, HandedOn>();
        for (const [owner, mine] of groupBy(handing, (item) => item.delivery.job.leaseOwner)) {
          const taken = await tx.work.takeNext({
            kind: WEBHOOK_DELIVERY.kind,
            groups: mine.map((i) => i.delivery.endpoint.id),
            owner,
            now,
            leaseUntil: now + this.leaseMs,
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
          const read = await this.reads.prepareIn(tx, jobs, (endpoint) => revisions.get(endpoint) ?? this.endpoints.revision(endpoint));
          jobs.forEach((job, i) => handed.set(job.id, { leaseUntil: job.leaseUntil, attempts: job.attempts, delivery: read[i] ?? null }));
        }
        return { next: items.map((item) => next.get(item) ?? null), handed, due: follow.some((w) => w.runAt <= now) };
      },
      { wakeWhen: ({ due }) => due },
    );
    for (const [id, delivery] of handed) this.handedOn.set(id, delivery);
    // the attempts that met a 410 are recorded: now each such endpoint is disabled, audited
    for (const [endpointId, job] of goneEndpoints(items)) await this.endpoints.markGone(job.accountId, job.livemode, endpointId);
    // and each endpoint whose deliveries began or stopped failing, or failed for the window, is
    // marked; the items are recorded already, so a failure here only waits for the next record
    await this.health.observe(items).catch(() => undefined);
    return next;
  }
}

/** The endpoints that answered 410 in these items, in id order, each with one of its jobs. */
function goneEndpoints(items: readonly RecordRequest[]): [string, RecordRequest["delivery"]["job"]][] {
  const gone = new Map(items.flatMap(({ delivery, sent }) => (sent.some((s) => s.outcome.gone) ? [[delivery.endpoint.id, delivery.job] as const] : [])));
  return [...gone].sort(([a], [b]) => (a < b ? -1 : 1));
}

import { BoundedMap } from "../../collections/bounded-map";
import { groupBy } from "../../collections/group-by";
import type { DeliveryPayload, DeliveryTrigger } from "../../events/delivery-work";
import type { EventRecord } from "../../ports/storage";
import { PermanentWorkError, type Job } from "../../workers/due-work";
import { GroupCommit } from "../../workers/group-commit";
import type { ModuleDeps, ReadTx } from "../../engine/context";
import { accountApiVersion } from "../accounts/account-version";
import { WEBHOOK_ENDPOINTS, type WebhookEndpointDoc } from "./webhook-endpoint-doc";
import type { WebhookEndpointsService } from "./webhook-endpoints-service";

/** A claimed delivery item: some events to one endpoint. */
export type DeliveryJob = Job<DeliveryPayload>;

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
  /** The API version the events are sent in: their account's default version (docs/versions.md). */
  apiVersion: string;
}

/**
 * An item's endpoint as stored (null when deleted), its events that are still kept, by id, and
 * its account's default API version.
 */
type Read = readonly [WebhookEndpointDoc | null, Map<string, EventRecord>, string];

/** Events kept after a read for the other endpoints' items (about a few fan-outs' worth). */
const RECENT_EVENTS = 4096;

/** The item's events and numbers, from either shape of its payload (see `WEBHOOK_DELIVERY`). */
export function deliveryOf(job: DeliveryJob): { events: string[]; attempt: number; first: number } {
  const { events, event, attempt = 1, first = job.created } = job.payload;
  const ids = events ?? (event !== undefined ? [event] : null);
  if (!ids) throw new PermanentWorkError(`${job.kind} ${job.id} names no event`);
  // every claim before this one may have sent its attempts: their numbers are spent
  return { events: ids, attempt: attempt + job.attempts - 1, first };
}

/**
 * Reading delivery items before they send: each item's endpoint and events. Items that start
 * at the same moment read together, in one short transaction (group commit); an item handed on
 * to a slot is read in the transaction that hands it on (`prepareIn`). Events never change once
 * written, so the items of one event to several endpoints share one read of it, and one body.
 */
export class DeliveryReads {
  /** Events read lately, by account and id. */
  private readonly recent = new BoundedMap<string, EventRecord>(RECENT_EVENTS);
  private readonly reads: GroupCommit<DeliveryJob, Read>;

  constructor(
    deps: ModuleDeps,
    private readonly endpoints: WebhookEndpointsService,
  ) {
    // few items per transaction on storage that runs one at a time, so a request never waits long behind one
    this.reads = new GroupCommit(deps.storage.capabilities, { maxBatch: 64, oneAtATime: 2, parallel: 2 }, (jobs) =>
      deps.storage.read((tx) => this.read(tx, jobs)),
    );
  }

  /**
   * Reads what the item needs (group commit); null when there is nothing to send: the endpoint
   * was deleted or is disabled, or every event is gone (past retention).
   */
  async prepare(job: DeliveryJob): Promise<PreparedDelivery | null> {
    deliveryOf(job); // a payload without events fails here, alone, not in the shared read
    const revision = this.endpoints.revision(job.payload.endpoint);
    const [endpoint, found, apiVersion] = await this.reads.submit(job);
    return prepared(job, revision, endpoint, found, apiVersion);
  }

  /** `prepare` of `jobs` inside `tx`, with each endpoint's revision as `revisionOf` says it was before. */
  async prepareIn(tx: ReadTx, jobs: readonly DeliveryJob[], revisionOf: (endpoint: string) => number): Promise<(PreparedDelivery | null)[]> {
    const read = await this.read(tx, jobs);
    return jobs.map((job, i) => prepared(job, revisionOf(job.payload.endpoint), ...read[i]!));
  }

  /**
   * What `jobs` need, read in `tx`: each job's endpoint and events (one statement per account for
   * each; none for events read lately). The reads are sent together, not one after another's
   * answer: a session that keeps call order (PGlite's) runs them back to back for one wait.
   */
  private async read(tx: ReadTx, jobs: readonly DeliveryJob[]): Promise<Read[]> {
    const endpoints = new Map<string, Map<string, WebhookEndpointDoc>>();
    const events = new Map<string, Map<string, EventRecord>>();
    const versions = new Map<string, string>();
    const reads = [...groupBy(jobs, (job) => job.accountId)].map(async ([accountId, mine]) => {
      const found = new Map<string, EventRecord>();
      const missing: string[] = [];
      for (const id of new Set(mine.flatMap((job) => deliveryOf(job).events))) {
        const event = this.recent.get(`${accountId}/${id}`);
        if (event) found.set(id, event);
        else missing.push(id);
      }
      const [account, docs, stored] = await Promise.all([
        tx.accounts.getAccount(accountId),
        WEBHOOK_ENDPOINTS.getMany(tx, accountId, [...new Set(mine.map((job) => job.payload.endpoint))]),
        missing.length ? tx.events.getMany(accountId, missing) : [],
      ]);
      versions.set(accountId, accountApiVersion(account?.settings));
      endpoints.set(accountId, docs);
      for (const event of stored) {
        this.recent.set(`${accountId}/${event.id}`, event);
        found.set(event.id, event);
      }
      events.set(accountId, found);
    });
    await Promise.all(reads);
    return jobs.map(
      (job) => [endpoints.get(job.accountId)!.get(job.payload.endpoint) ?? null, events.get(job.accountId)!, versions.get(job.accountId)!] as const,
    );
  }
}

/** The item ready to send, or null when there is nothing to send (see `DeliveryReads.prepare`). */
function prepared(
  job: DeliveryJob,
  revision: number,
  endpoint: WebhookEndpointDoc | null,
  found: Map<string, EventRecord>,
  apiVersion: string,
): PreparedDelivery | null {
  const { events: ids, attempt, first } = deliveryOf(job);
  if (!endpoint || endpoint.state !== "enabled") return null;
  const events = ids.flatMap((id) => found.get(id) ?? []);
  if (!events.length) return null;
  return { job, endpoint, revision, events, attempt, first, trigger: job.payload.trigger, apiVersion };
}

import { groupBy } from "../../collections/group-by";
import { WEBHOOK_DELIVERY, deliveryChunks, type FanoutPayload } from "../../events/delivery-work";
import { keysetRows } from "../../lists/list-page";
import type { DueWorkRecord, StorageTx } from "../../ports/storage";
import { newDueWork, traceOnly, type Job } from "../../workers/due-work";
import { GroupCommit } from "../../workers/group-commit";
import type { WorkOutcome } from "../../workers/work-settlement";
import type { ModuleDeps } from "../../engine/context";
import { WEBHOOK_ENDPOINTS, type WebhookEndpointDoc } from "./webhook-endpoint-doc";
import type { EngineCatalogue } from "../../engine/catalogue";

/**
 * Fan-outs running at once in a process: their own lane, so events reach their endpoints while a
 * batch's chunks fill the default lane.
 */
export const FAN_OUTS_AT_ONCE = 4;

const ENDPOINT_PAGE = 200;

/**
 * What one transaction's events become: per endpoint (in the order given), the events it
 * subscribes to, in runs of up to `EVENTS_PER_DELIVERY`, each run one delivery item.
 */
export function fannedOut(
  events: FanoutPayload["events"],
  endpoints: readonly Pick<WebhookEndpointDoc, "id" | "enabledEvents">[],
  catalogue: Pick<EngineCatalogue, "subscribes">,
): { endpoint: string; events: string[] }[] {
  return endpoints.flatMap((endpoint) => {
    const theirs = events.filter((event) => catalogue.subscribes(endpoint.enabledEvents, event.type)).map((event) => event.id);
    return deliveryChunks(theirs).map((chunk) => ({ endpoint: endpoint.id, events: chunk }));
  });
}

/**
 * The `webhook.fanout` handler: turns one transaction's events into delivery items for each
 * subscribed, enabled endpoint, and completes the fan-out item in the same transaction, so a
 * crash can neither lose nor repeat it. Fan-outs that run at the same moment share that
 * transaction (group commit); one whose lease was lost fails alone.
 */
export class DeliveryFanOut {
  private readonly fanOuts: GroupCommit<Job<FanoutPayload>, void>;

  constructor(private readonly deps: Pick<ModuleDeps, "catalogue" | "clock" | "ids" | "storage">) {
    // every fan-out the lane runs at once may share one transaction, whatever the storage
    this.fanOuts = new GroupCommit(deps.storage.capabilities, { maxBatch: FAN_OUTS_AT_ONCE, parallel: 2 }, (jobs) => this.write(jobs));
  }

  /** Runs one fan-out item; it is settled (completed in its own transaction) when this resolves. */
  async fanOut(job: Job<FanoutPayload>): Promise<WorkOutcome> {
    await this.fanOuts.submit(job);
    return { kind: "settled" };
  }

  private async write(jobs: Job<FanoutPayload>[]): Promise<void[]> {
    const now = this.deps.clock.now();
    await this.deps.storage.engineWork(
      async (tx) => {
        const completed = new Set<string>();
        for (const [owner, theirs] of groupBy(jobs, (job) => job.leaseOwner)) {
          for (const id of await tx.work.completeMany(
            theirs.map((job) => job.id),
            owner,
          ))
            completed.add(id);
        }
        const lost = jobs.find((job) => !completed.has(job.id));
        if (lost) throw new Error(`the lease of fan-out ${lost.id} was lost`);
        const work: DueWorkRecord[] = [];
        for (const [accountId, theirs] of groupBy(jobs, (job) => job.accountId)) {
          const endpoints = await enabledEndpoints(tx, accountId);
          for (const { payload, livemode, request } of theirs) {
            // a delivery joins the trace its events were emitted in (when traced)
            const owner = { accountId, livemode, request: traceOnly(request) };
            for (const item of fannedOut(payload.events, endpoints, this.deps.catalogue)) {
              const delivery = { ...item, trigger: "scheduled" as const };
              work.push(newDueWork(this.deps.ids, now, WEBHOOK_DELIVERY, delivery, owner, { group: item.endpoint }));
            }
          }
        }
        if (work.length) await tx.work.enqueue(work);
        return work.length;
      },
      { wakeWhen: (scheduled) => scheduled > 0 },
    );
    return jobs.map(() => undefined);
  }
}

/** Every enabled endpoint of the account, read a page at a time. */
async function enabledEndpoints(tx: StorageTx, accountId: string): Promise<WebhookEndpointDoc[]> {
  const out: WebhookEndpointDoc[] = [];
  const all = keysetRows(ENDPOINT_PAGE, (after) =>
    tx.resources.list({ accountId, kind: WEBHOOK_ENDPOINTS.type.kind, status: "enabled", limit: ENDPOINT_PAGE, ...(after ? { after } : {}) }),
  );
  for await (const r of all) out.push(WEBHOOK_ENDPOINTS.read(r));
  return out;
}

import { WEBHOOK_DELIVERY_KIND, WEBHOOK_FANOUT_KIND } from "../events/delivery-work";
import type { DeliveryAdapter } from "../ports/delivery";
import type { WebhookDeliveriesService } from "../services/webhook-deliveries";
import type { WorkerRunner } from "./runner";

export interface WebhookWorkerOptions {
  /** Attempts in flight in this process (the lane's pool). */
  concurrency: number;
  /** Attempts in flight per endpoint, across every worker (the due-work group limit). */
  perEndpoint: number;
  /** The lane's lease: it must outlast an attempt's timeout, or a second worker would send it again. */
  leaseMs: number;
}

/**
 * The delivery worker. Fan-out items run in the default lane; attempts run in a lane of their
 * own, grouped by endpoint, so receivers that hang for the full timeout hold only their own
 * endpoint's slots and never the engine's other work. One attempt: read and sign (one short
 * transaction), POST outside any transaction, then record the outcome and settle the item (one
 * transaction). A worker that dies in between leaves a lease that expires; the next worker sends
 * the attempt again (at least once) under the next attempt number.
 */
export function registerWebhookWorkers(
  worker: WorkerRunner,
  deliveries: WebhookDeliveriesService,
  delivery: DeliveryAdapter,
  options: WebhookWorkerOptions,
): void {
  worker.register(WEBHOOK_FANOUT_KIND, async (job) => {
    await deliveries.fanOut(job);
    return { kind: "settled" };
  });
  worker.addLane({
    kinds: [WEBHOOK_DELIVERY_KIND],
    concurrency: options.concurrency,
    groupLimit: options.perEndpoint,
    leaseMs: options.leaseMs,
  });
  worker.register(WEBHOOK_DELIVERY_KIND, async (job) => {
    const prepared = await deliveries.prepare(job);
    if (!prepared) return { kind: "done" };
    const result = await delivery.send(prepared.request);
    await deliveries.record(job, prepared, result);
    return { kind: "settled" };
  });
}

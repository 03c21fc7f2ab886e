import { WEBHOOK_DELIVERY, WEBHOOK_FANOUT } from "../../events/delivery-work";
import { work, type WorkBinding } from "../../engine/module";
import type { ModuleDeps } from "../../engine/context";
import { DeliveryFanOut, FAN_OUTS_AT_ONCE } from "./delivery-fan-out";
import { DeliveryReads } from "./delivery-read";
import { DeliveryPace } from "./delivery-pace";
import { DeliveryRecord } from "./delivery-record";
import { DeliverySend, RECORD_MARGIN_MS } from "./delivery-send";
import type { WebhookEndpointsService } from "./webhook-endpoints-service";

/**
 * The stages of webhook delivery, wired as the module's due-work handlers (and nothing else: no
 * stage is a member of the engine). Fan-outs run in a lane of their own (`FAN_OUTS_AT_ONCE`), so
 * events reach their endpoints while a batch's chunks fill the default lane. Delivery items run
 * in another, grouped by endpoint, so receivers that hang for the full timeout hold only their
 * own endpoint's slots: an item is read (group commit), sends its events one after the other
 * outside any transaction, then is recorded (group commit) with its slot handed on to the
 * endpoint's next due item. The lane's slots are shared fairly among accounts (`fairShares`): an
 * account alone holds half of them at most, so another's events always find a free one.
 * `workerLeaseMs` is the runner's default lease.
 */
export function deliveryWork(deps: ModuleDeps, endpoints: WebhookEndpointsService, workerLeaseMs: number): WorkBinding[] {
  // the lease outlasts an attempt's timeout by the time its record may take
  const leaseMs = Math.max(workerLeaseMs, deps.config.webhookTimeoutMs + RECORD_MARGIN_MS);
  const fanOut = new DeliveryFanOut(deps);
  const reads = new DeliveryReads(deps, endpoints);
  const record = new DeliveryRecord(deps, endpoints, reads, leaseMs);
  const pace = new DeliveryPace(deps);
  const send = new DeliverySend(deps, endpoints, reads, record, pace);
  return [
    // shared among accounts too: a backlog of one account's fan-outs never queues another's
    work(WEBHOOK_FANOUT, (job) => fanOut.fanOut(job), { concurrency: FAN_OUTS_AT_ONCE, fairShares: true }),
    work(WEBHOOK_DELIVERY, (job) => send.deliver(job), {
      // one item sends one attempt at a time: items in flight are attempts in flight
      concurrency: deps.config.webhookConcurrency,
      groupLimit: deps.config.webhookEndpointConcurrency,
      leaseMs,
      // an item holds its slot for many attempts, then mostly hands it on: refill at once
      refillAt: 1,
      // one account's slow receivers never hold the slots of another's
      fairShares: true,
      // endpoints out of their rate limit's slots wait for their window without a claim
      heldBack: () => pace.heldBack(),
    }),
  ];
}

import type { DeliveryTrigger } from "../../events/delivery-work";
import { toEnvelope } from "../../events/envelope";
import { renderForVersion } from "../../versions/api-versions";
import { honoursRetryAfter, nextAttemptAt } from "../../events/retry-schedule";
import { signatureHeaders } from "../../events/signature-schemes";
import type { DeliveryRequest, DeliveryResult } from "../../ports/delivery";
import type { DeliveryOutcomeKind } from "../../ports/observer";
import type { EventRecord } from "../../ports/storage";
import type { WorkOutcome } from "../../workers/work-settlement";
import type { ModuleDeps } from "../../engine/context";
import type { DeliveryRecord } from "./delivery-record";
import type { DeliveryJob, DeliveryReads, PreparedDelivery } from "./delivery-read";
import type { DeliveryPace } from "./delivery-pace";
import { schemeOf, signingSecrets } from "./webhook-endpoint-doc";
import type { WebhookEndpointsService } from "./webhook-endpoints-service";

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

/** What an attempt's result means (pure; docs/decisions.md §6). */
export interface AttemptOutcome {
  status: "succeeded" | "failed";
  responseStatus: number | null;
  error: string | null;
  /** The receiver answered 410: the endpoint is disabled for good. */
  gone: boolean;
  /** When to try again; null when done (acknowledged, gone, or out of attempts). */
  next: number | null;
}

/**
 * Of an item's lease, what is kept for recording its attempts after the last one: an item starts
 * no attempt that could end later than its lease minus this (the lane's lease is at least the
 * timeout plus this, so the first attempt always fits).
 */
export const RECORD_MARGIN_MS = 30_000;

/** `jitter` draws a uniform number in [0, 1), only for a failure (a success needs none). */
export function attemptOutcome(result: DeliveryResult, attempt: number, firstAt: number, now: number, jitter: () => number): AttemptOutcome {
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

/** What a webhook sends of `event`: its envelope as JSON, in the API version `version`. */
export function eventBody(event: EventRecord, version: string): string {
  return JSON.stringify(renderForVersion(toEnvelope(event), version));
}

/**
 * One attempt of `event` in `delivery`, signed afresh now under its endpoint's scheme: a new `t` and a new `dlv_` id. `body`
 * is the event's envelope as JSON (the items of one event share it; default: made here).
 */
export function signedAttempt(
  deps: Pick<ModuleDeps, "clock" | "ids"> & { config: Pick<ModuleDeps["config"], "webhookTimeoutMs"> },
  delivery: PreparedDelivery,
  event: EventRecord,
  body?: string,
): PreparedAttempt {
  const now = deps.clock.now();
  const deliveryId = deps.ids.next("dlv");
  body ??= eventBody(event, delivery.apiVersion);
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
      timeoutMs: deps.config.webhookTimeoutMs,
      headers: {
        // the endpoint's own headers first: none of them may be one of the engine's (endpoint-headers.ts)
        ...endpoint.headers,
        "Content-Type": "application/json",
        ...signatureHeaders(schemeOf(endpoint), { id: event.id, body }, signingSecrets(endpoint, now), Math.floor(now / 1000)),
        "Service-Event": event.type,
        "Service-Delivery": deliveryId,
        "Service-Attempt": String(attempt),
      },
    },
  };
}

/**
 * The `webhook.deliver` handler: reads an item (or takes it as read by the transaction that
 * handed it on), sends its events one after the other through the delivery port, each signed
 * afresh (so the item holds one of its endpoint's slots, never more), and hands the attempts to
 * the record stage. It stops early when its endpoint answers 410 (the rest is dropped), when the
 * endpoint changed in this process meanwhile, when the next attempt could outlast its lease (the
 * rest goes on in a new item, under the same attempt number), or when the endpoint's rate limit
 * has no slot now (likewise, due when its window frees one: `DeliveryPace`).
 */
export class DeliverySend {
  /** Endpoints that answered 410 to this process: nothing more is sent to them from here. */
  private readonly gone = new Set<string>();
  /** Events' bodies, made once for all the endpoints an event goes to (reads share the records). */
  private readonly bodies = new WeakMap<EventRecord, { version: string; body: string }>();

  constructor(
    private readonly deps: Pick<ModuleDeps, "clock" | "config" | "delivery" | "ids" | "observer" | "random">,
    private readonly endpoints: WebhookEndpointsService,
    private readonly reads: DeliveryReads,
    private readonly record: DeliveryRecord,
    private readonly pace: DeliveryPace,
  ) {}

  /** Runs one delivery item; the runner runs the item its slot was handed on to, if any, next. */
  async deliver(job: DeliveryJob): Promise<WorkOutcome> {
    const handed = this.record.takeHandedOn(job);
    const delivery = handed !== undefined ? handed : await this.reads.prepare(job);
    if (!delivery) return { kind: "done" };
    const { endpoint, events } = delivery;
    const timeout = this.deps.config.webhookTimeoutMs;
    const sent: SentAttempt[] = [];
    let rest: string[] = [];
    let restAt: number | null = null;
    for (let i = 0; i < events.length; i++) {
      if (this.gone.has(endpoint.id)) break;
      const late = i > 0 && this.deps.clock.now() + timeout + RECORD_MARGIN_MS > job.leaseUntil;
      if (late || this.endpoints.revision(endpoint.id) !== delivery.revision) {
        rest = events.slice(i).map((e) => e.id);
        break;
      }
      // an endpoint with a rate limit out of slots: the rest waits for its window, in no slot
      restAt = endpoint.rateLimit ? await this.pace.take(endpoint) : null;
      if (restAt !== null) {
        rest = events.slice(i).map((e) => e.id);
        break;
      }
      const prepared = signedAttempt(this.deps, delivery, events[i]!, this.body(events[i]!, delivery.apiVersion));
      const result = await this.deps.delivery.send(prepared.request);
      const at = this.deps.clock.now();
      const outcome = attemptOutcome(result, prepared.attempt, delivery.first, at, this.jitter);
      sent.push({ prepared, result, outcome, at });
      if (outcome.gone) this.gone.add(endpoint.id); // every item of the endpoint stops here
    }
    const next = await this.record.record({ delivery, sent, rest, ...(restAt !== null ? { restAt } : {}) });
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

  private body(event: EventRecord, version: string): string {
    let body = this.bodies.get(event);
    if (body?.version !== version) this.bodies.set(event, (body = { version, body: eventBody(event, version) }));
    return body.body;
  }

  /** A uniform draw in [0, 1) from the engine's randomness (seeded in simulations). */
  private readonly jitter = (): number => {
    const [a = 0, b = 0] = this.deps.random(2);
    return (a * 256 + b) / 65_536;
  };
}

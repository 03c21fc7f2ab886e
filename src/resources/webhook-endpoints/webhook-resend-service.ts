import { err, ok, type Result } from "neverthrow";
import type { Out } from "../../api/response-schema";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { type ApiError, fail } from "../../errors";
import { keysetRows } from "../../lists/list-page";
import { scheduleDeliveries } from "./webhook-deliveries-service";
import type { DeliveryLogRecord } from "../../ports/storage";
import { isoTime } from "../../validation/timestamp";
import type { WebhookRecovery, WebhookResend } from "./webhook-endpoint-objects";
import { type RecoverInput, type ResendInput, recoverSchema, resendSchema } from "./webhook-endpoint-schemas";
import type { WebhookEndpointsService } from "./webhook-endpoints-service";

/** What a resend answers: the event and the endpoint it is queued for. */
export type WebhookResendObject = Out<typeof WebhookResend>;

/** What a recover answers: the endpoint, the moment and how many events it queued. */
export type WebhookRecoveryObject = Out<typeof WebhookRecovery>;

/** Delivery log entries a recover reads per statement. */
const LOG_PAGE = 1000;

/**
 * The events a recover re-sends, from an endpoint's delivery log entries since its `since`
 * (oldest first): those whose latest attempt failed, in the order they first appear, less those
 * whose next attempt is still to come (after `now`: their retry is queued and will send them).
 */
export function recoverable(entries: readonly Pick<DeliveryLogRecord, "eventId" | "status" | "nextAttemptAt">[], now: number): string[] {
  const latest = new Map<string, Pick<DeliveryLogRecord, "status" | "nextAttemptAt">>();
  for (const entry of entries) latest.set(entry.eventId, entry);
  return [...latest].filter(([, e]) => e.status === "failed" && !(e.nextAttemptAt !== null && e.nextAttemptAt > now)).map(([id]) => id);
}

/**
 * Sending again by hand (docs/decisions.md §11): one event to one endpoint (`resend`, logged with
 * trigger `manual`), or every event whose deliveries to an endpoint failed since a moment
 * (`recover`, logged with trigger `replay`, as a replay). Both queue delivery items in the
 * request's transaction; the events keep their ids and are signed afresh when sent.
 */
export class WebhookResendService {
  constructor(
    private readonly deps: Pick<ModuleDeps, "catalogue" | "clock" | "config" | "parse" | "storage">,
    private readonly endpoints: WebhookEndpointsService,
  ) {}

  /**
   * `POST /v1/events/{id}/resend`: queues the event for the endpoint. The endpoint must be
   * enabled and subscribe to the event's type (its `enabled_events` are what its receiver
   * accepts; a resend never sends a type it did not ask for).
   */
  async resend(ctx: RequestContext, eventId: string, input: ResendInput): Promise<Result<WebhookResendObject, ApiError>> {
    const parsed = resendSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const endpointId = parsed.value.endpoint;
    return this.deps.storage.command(
      ctx,
      async (uow) => {
        const event = await uow.tx.events.get(ctx.accountId, eventId);
        if (!event) return fail("resource_missing", `No such event: ${eventId}`, { param: "id" });
        const found = await this.endpoints.findEnabled(uow.tx, ctx, endpointId, "resending to it", "endpoint");
        if (found.isErr()) return err(found.error);
        const endpoint = found.value;
        if (!this.deps.catalogue.subscribes(endpoint.enabledEvents, event.type)) {
          return fail("parameter_invalid", `This endpoint does not subscribe to ${event.type} events`, { param: "endpoint" });
        }
        scheduleDeliveries(uow, endpoint.id, [event.id], "manual");
        return ok({ object: "webhook_resend", event: event.id, endpoint: endpoint.id });
      },
      { status: 202 },
    );
  }

  /**
   * `POST /v1/webhook_endpoints/{id}/recover`: queues the events whose latest attempt to the
   * endpoint since `since` failed (see `recoverable`), oldest failure first. `since` may reach
   * back as far as the delivery log (7 days); the endpoint must be enabled.
   */
  async recover(ctx: RequestContext, endpointId: string, input: RecoverInput): Promise<Result<WebhookRecoveryObject, ApiError>> {
    const parsed = recoverSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const now = this.deps.clock.now();
    const since = parsed.value.since;
    if (since < now - this.deps.config.deliveryLogRetentionMs) {
      return fail("replay_window_exceeded", "since is older than the delivery log's 7-day window", { param: "since" });
    }
    if (since > now) return fail("parameter_invalid", "since must not be in the future", { param: "since" });
    return this.deps.storage.command(
      ctx,
      async (uow) => {
        const found = await this.endpoints.findEnabled(uow.tx, ctx, endpointId, "recovering");
        if (found.isErr()) return err(found.error);
        const endpoint = found.value;
        // each event's latest entry, kept where the event first appeared (what `recoverable` needs of it)
        const latest = new Map<string, DeliveryLogRecord>();
        const log = keysetRows(LOG_PAGE, (after) =>
          uow.tx.deliveries.list({ accountId: ctx.accountId, endpointId, createdGte: since, order: "asc", limit: LOG_PAGE, ...(after ? { after } : {}) }),
        );
        for await (const entry of log) latest.set(entry.eventId, entry);
        // only the types it still subscribes to, as replay and resend (its filter may have changed since)
        const subscribed = [...latest.values()].filter((entry) => this.deps.catalogue.subscribes(endpoint.enabledEvents, entry.eventType));
        const events = recoverable(subscribed, uow.now);
        scheduleDeliveries(uow, endpoint.id, events, "replay");
        return ok({ object: "webhook_recovery", endpoint: endpoint.id, since: isoTime(since), event_count: events.length });
      },
      { status: 202 },
    );
  }
}

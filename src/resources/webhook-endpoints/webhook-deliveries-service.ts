import type { WebhookDelivery, WebhookReplay } from "./webhook-endpoint-objects";
import type { Out } from "../../api/response-schema";
import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import { type DeliveryTrigger, WEBHOOK_DELIVERY, deliveryChunks } from "../../events/delivery-work";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { toEnvelope } from "../../events/envelope";
import { expandObjects, idField, itemPaths, type Expandable } from "../../lists/expansion";
import { type ListEnvelope, type PagedList, keysetRows, listPage, pagedList } from "../../lists/list-page";
import type { DeliveryLogRecord } from "../../ports/storage";
import { isoTime } from "../../validation/timestamp";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import type { WebhookEndpointsService } from "./webhook-endpoints-service";
import { type ListDeliveriesParams, type ReplayInput, listDeliveriesSchema, replaySchema } from "./webhook-endpoint-schemas";

/** What `expand[]` replaces in a delivery log entry: its event (kept 30 days, longer than the log). */
const DELIVERY_EXPANDABLE: Expandable = {
  fields: {
    event: idField("event", async ({ tx, accountId }, ids) => new Map((await tx.events.getMany(accountId, ids)).map((e) => [e.id, toEnvelope(e)]))),
  },
};

/** A delivery log entry as the API shows it (docs/decisions.md §4). */
export type WebhookDeliveryObject = Out<typeof WebhookDelivery>;

/** What a replay answers: the endpoint, the window and how many events it scheduled. */
export type WebhookReplayObject = Out<typeof WebhookReplay>;

function presentDelivery(d: DeliveryLogRecord): WebhookDeliveryObject {
  // the log holds only what the record stage wrote: catalogue types, its triggers and outcomes
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

const REPLAY_PAGE = 1000;

/**
 * The API operations of webhook deliveries: the delivery log (`list`) and replay. Delivery itself
 * runs as due work in three stages (fan-out, send, record; `delivery-handlers.ts`), which are
 * not members of the engine.
 */
export class WebhookDeliveriesService {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "catalogue" | "clock" | "config" | "cursors" | "parse" | "storage">,
    private readonly endpoints: WebhookEndpointsService,
  ) {}

  /** `GET /v1/webhook_endpoints/{id}/deliveries`: the attempts of the last 7 days, newest first; `event` keeps one event's. */
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
      ...(paths.length || params.event !== undefined
        ? { extraBinding: { expand: paths, ...(params.event !== undefined ? { event: params.event } : {}) } }
        : {}),
      fetch: (query) =>
        this.deps.storage.read((tx) => tx.deliveries.list({ ...query, endpointId, ...(params.event !== undefined ? { eventId: params.event } : {}) })),
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
        const found = await this.endpoints.findEnabled(uow.tx, ctx, endpointId, "replaying");
        if (found.isErr()) return err(found.error);
        const endpoint = found.value;
        const events: string[] = [];
        const all = keysetRows(REPLAY_PAGE, (after) =>
          uow.tx.events.list({ accountId: ctx.accountId, createdGte: from, createdLt: to, limit: REPLAY_PAGE, ...(after ? { after } : {}) }),
        );
        for await (const e of all) if (this.deps.catalogue.subscribes(endpoint.enabledEvents, e.type)) events.push(e.id);
        scheduleDeliveries(uow, endpoint.id, events.reverse(), "replay");
        return ok({ object: "webhook_replay", endpoint: endpoint.id, from: isoTime(from), to: isoTime(to), event_count: events.length });
      },
      { status: 202 },
    );
  }
}

/** Schedules delivery items of `events` (oldest first) to one endpoint, `EVENTS_PER_DELIVERY` at most each, in its group. */
export function scheduleDeliveries(uow: UnitOfWork, endpoint: string, events: readonly string[], trigger: DeliveryTrigger): void {
  for (const chunk of deliveryChunks(events)) uow.schedule(WEBHOOK_DELIVERY, { endpoint, events: chunk, trigger }, { group: endpoint });
}

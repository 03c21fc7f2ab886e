import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../errors";
import { EVENT_TYPES } from "../events/catalogue";
import { toEnvelope, type EventEnvelope } from "../events/envelope";
import { sampleObject } from "./event-samples";
import { listPage, type ListEnvelope } from "../lists/list-page";
import { listParamsShape } from "../lists/list-params";
import { s, type Infer } from "../validation/schema";
import { runCommand } from "./command";
import type { EngineDeps, RequestContext } from "./context";

export const listEventsSchema = s.object({
  ...listParamsShape,
  type: s.enum(EVENT_TYPES).optional().describe("Only events of this type"),
});

export type ListEventsParams = Infer<typeof listEventsSchema>;

export const triggerEventSchema = s.object({
  type: s.enum(EVENT_TYPES).describe("The event type to emit with a sample object"),
});

/** `GET /v1/events[/{id}]`: the outbox as the account sees it, kept 30 days. */
export class EventsService {
  constructor(private readonly deps: EngineDeps) {}

  async get(ctx: RequestContext, id: string): Promise<Result<EventEnvelope, ApiError>> {
    const record = await this.deps.storage.transaction((tx) => tx.events.get(ctx.accountId, id));
    return record ? ok(toEnvelope(record)) : fail("resource_missing", `No such event: ${id}`, { param: "id" });
  }

  async list(ctx: RequestContext, input: unknown): Promise<Result<ListEnvelope<EventEnvelope>, ApiError>> {
    const parsed = listEventsSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const params = parsed.value;
    return listPage({
      codec: this.deps.cursors,
      accountId: ctx.accountId,
      list: "events",
      params,
      ...(params.type !== undefined ? { status: params.type } : {}),
      fetch: (query) => this.deps.storage.transaction((tx) => tx.events.list(query)),
      position: (row) => ({ created: row.created, id: row.id }),
      present: toEnvelope,
    });
  }

  /**
   * `POST /v1/test_helpers/events/trigger` (DECISIONS.md §7, test mode only): emits one event of
   * `type` about a sample object, delivered to the account's endpoints like any other event.
   */
  async trigger(ctx: RequestContext, input: unknown): Promise<Result<EventEnvelope, ApiError>> {
    if (ctx.livemode) return fail("resource_missing", "Test helpers exist only in test mode");
    const parsed = triggerEventSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const emitted = await runCommand(this.deps, ctx, async (uow) =>
      ok(uow.emit(parsed.value.type, sampleObject(parsed.value.type, this.deps.ids, this.deps.assets, uow.now))),
    );
    if (emitted.isErr()) return err(emitted.error);
    return this.get(ctx, emitted.value);
  }
}

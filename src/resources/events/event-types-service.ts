import { err, ok, type Result } from "neverthrow";
import type { ApiError } from "../../errors";
import { type EventTypeItem, eventTypeItems } from "../../events/event-types";
import { type ListEnvelope, type PagedList, cursorBinding, pageByKey, pageStart, pagedList } from "../../lists/list-page";
import { DEFAULT_LIMIT } from "../../lists/list-params";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { type ListEventTypesParams, listEventTypesSchema } from "./event-schemas";

/**
 * `GET /v1/event_types`: the engine's event catalogue (docs/decisions.md §11), each type with its
 * description and the JSON Schema of its `data.object`, ordered by type, under the list contract
 * (cursors keyed by type). The same definitions make the OpenAPI document's `webhooks`.
 */
export class EventTypesService {
  private items: EventTypeItem[] | undefined;

  constructor(private readonly deps: Pick<ModuleDeps, "assets" | "catalogue" | "cursors" | "parse">) {}

  list(ctx: RequestContext, params: ListEventTypesParams = {}): PagedList<EventTypeItem> {
    return pagedList(params, (p) => Promise.resolve(this.page(ctx, p)));
  }

  private page(ctx: RequestContext, query: ListEventTypesParams): Result<ListEnvelope<EventTypeItem>, ApiError> {
    const parsed = listEventTypesSchema.parse(query, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const binding = cursorBinding(ctx.accountId, "event_types", []);
    const start = pageStart(this.deps.cursors, parsed.value, binding);
    if (start.isErr()) return err(start.error);
    // built once: the catalogue is fixed for the engine's life
    this.items ??= eventTypeItems(this.deps.catalogue, this.deps.assets);
    return ok(pageByKey(this.items, (t) => t.type, parsed.value.limit ?? DEFAULT_LIMIT, start.value, this.deps.cursors, binding));
  }
}

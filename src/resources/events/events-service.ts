import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import { toEnvelope, type EventEnvelope } from "../../events/envelope";
import { type ListEnvelope, type PagedList, listPage, pagedList } from "../../lists/list-page";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { type ListEventsParams, listEventsSchema } from "./event-schemas";

/** How often a waiting list looks again when no commit in this process woke it (another process may have written). */
const WAIT_POLL_MS = 1_000;

/** `GET /v1/events[/{id}]`: the outbox as the account sees it, kept 30 days. */
export class EventsService {
  /** Wakes the lists waiting for events (see `notify`). */
  private readonly waiters = new Set<() => void>();
  /** Counts notifications, so a list can tell one came between its query and its wait. */
  private notified = 0;
  private readonly closing = new AbortController();

  constructor(private readonly deps: Pick<ModuleDeps, "clock" | "cursors" | "parse" | "storage">) {}

  /** Says this process just committed work (events among it): waiting lists look again now. */
  notify(): void {
    this.notified++;
    for (const wake of this.waiters) wake();
  }

  /** Answers every waiting list at once (the engine is closing). */
  close(): void {
    this.closing.abort();
  }

  async retrieve(ctx: RequestContext, id: string): Promise<Result<EventEnvelope, ApiError>> {
    const record = await this.deps.storage.read((tx) => tx.events.get(ctx.accountId, id));
    return record ? ok(toEnvelope(record)) : fail("resource_missing", `No such event: ${id}`, { param: "id" });
  }

  list(ctx: RequestContext, params: ListEventsParams = {}): PagedList<EventEnvelope> {
    return pagedList(params, (p) => this.page(ctx, p));
  }

  private async page(ctx: RequestContext, input: ListEventsParams): Promise<Result<ListEnvelope<EventEnvelope>, ApiError>> {
    const parsed = listEventsSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { wait, ...params } = parsed.value;
    const page = () =>
      listPage({
        codec: this.deps.cursors,
        accountId: ctx.accountId,
        list: "events",
        params,
        ...(params.type !== undefined ? { status: params.type } : {}),
        fetch: (query) => this.deps.storage.read((tx) => tx.events.list(query)),
        position: (row) => ({ created: row.created, id: row.id }),
        present: toEnvelope,
      });
    // `wait`: an empty page is held until an event matches, this process commits, or time runs out
    const deadline = this.deps.clock.now() + (wait ?? 0) * 1000;
    for (;;) {
      const seen = this.notified;
      const result = await page();
      const left = deadline - this.deps.clock.now();
      if (result.isErr() || result.value.data.length > 0 || left <= 0 || this.closing.signal.aborted) return result;
      if (seen === this.notified) await this.nap(Math.min(left, WAIT_POLL_MS));
    }
  }

  /** Sleeps `ms` on the engine's clock, or until `notify` or `close`. */
  private async nap(ms: number): Promise<void> {
    const woken = new AbortController();
    const wake = () => woken.abort();
    this.waiters.add(wake);
    try {
      await this.deps.clock.sleep(ms, AbortSignal.any([woken.signal, this.closing.signal]));
    } catch {
      // woken early
    } finally {
      this.waiters.delete(wake);
    }
  }
}

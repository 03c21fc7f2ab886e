import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";
import type { KeysetQuery } from "../ports/storage";
import type { CursorBinding, CursorCodec, CursorPosition } from "./cursor-codec";
import { DEFAULT_LIMIT, type ListParams } from "./list-params";
import { metadataSearch } from "../metadata/metadata";

/** The list envelope of docs/decisions.md §5, with `previous_cursor` (§11). */
export interface ListEnvelope<T> {
  object: "list";
  data: T[];
  /** Whether more rows follow in the direction asked: older ones forward, newer ones with `ending_before`. */
  has_more: boolean;
  /** Pass as `starting_after` for the page after this one; null when there is none. */
  next_cursor: string | null;
  /** Pass as `ending_before` for the page before this one; null on the first page. */
  previous_cursor: string | null;
}

export interface ListPageRequest<R, T> {
  codec: CursorCodec;
  accountId: string;
  /** Name the cursor is bound to. */
  list: string;
  params: ListParams;
  /** The list's own equality filter on the indexed status/type column, if any. */
  status?: string;
  /** Other filters the cursor must be bound to (e.g. `expand`). */
  extraBinding?: Record<string, unknown>;
  fetch: (query: KeysetQuery) => Promise<R[]>;
  position: (row: R) => CursorPosition;
  present: (row: R) => T | Promise<T>;
}

/**
 * Where a page starts: the first page, forward from a `starting_after` cursor, or backward from
 * an `ending_before` cursor (the rows before it in the list's order, nearest first).
 */
export interface PageStart {
  direction: "forward" | "backward";
  position?: CursorPosition;
}

/** The binding of a list's cursors: the account, the list and its filters (never `limit` or the cursors). */
export function cursorBinding(accountId: string, list: string, filters: unknown[]): CursorBinding {
  return { accountId, list, filters: JSON.stringify(filters) };
}

/**
 * Reads a list's cursor parameters under the list's binding: `starting_after` and
 * `ending_before` take the same cursors (a page's `next_cursor` or `previous_cursor`), and not
 * both at once.
 */
export function pageStart(
  codec: CursorCodec,
  params: Pick<ListParams, "starting_after" | "ending_before">,
  binding: CursorBinding,
): Result<PageStart, ApiError> {
  if (params.starting_after !== undefined && params.ending_before !== undefined) {
    return fail("parameter_invalid", "starting_after and ending_before cannot be used together", { param: "ending_before" });
  }
  if (params.ending_before !== undefined) {
    return codec.decode(params.ending_before, binding, "ending_before").map((position) => ({ direction: "backward", position }));
  }
  if (params.starting_after !== undefined) {
    return codec.decode(params.starting_after, binding).map((position) => ({ direction: "forward", position }));
  }
  return ok({ direction: "forward" });
}

/** A page cut from rows fetched from its start in the direction asked (up to `limit + 1`, nearest first). */
export interface PageWindow<R> {
  /** The page's rows in the list's order. */
  rows: R[];
  hasMore: boolean;
  next: string | null;
  previous: string | null;
}

/**
 * Cuts a page of `limit` rows and its cursors out of rows fetched from `start` in its direction.
 * `has_more` speaks of that direction. A page reached forward has a previous page unless it is
 * the first; a page reached backward has a next page (the one it was reached from). A page with
 * no rows takes its cursors from where it started.
 */
export function pageWindow<R>(
  fetched: readonly R[],
  limit: number,
  start: PageStart,
  cursor: (row: R) => string,
  at: (position: CursorPosition) => string,
): PageWindow<R> {
  const hasMore = fetched.length > limit;
  const taken = fetched.slice(0, limit);
  if (start.direction === "forward") {
    const first = taken[0];
    const last = taken[taken.length - 1];
    return {
      rows: taken,
      hasMore,
      next: hasMore && last !== undefined ? cursor(last) : null,
      previous: start.position === undefined ? null : first !== undefined ? cursor(first) : at(start.position),
    };
  }
  const rows = taken.reverse();
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    rows,
    hasMore,
    previous: hasMore && first !== undefined ? cursor(first) : null,
    next: last !== undefined ? cursor(last) : at(start.position!),
  };
}

/**
 * Every row of a storage keyset list, read `limit` at a time: `read(after)` returns the page
 * after that position (from the start when undefined), at most `limit` rows.
 */
export async function* keysetRows<R extends { created: number; id: string }>(
  limit: number,
  read: (after: { created: number; id: string } | undefined) => Promise<readonly R[]>,
): AsyncGenerator<R> {
  let after: { created: number; id: string } | undefined;
  for (;;) {
    const page = await read(after);
    yield* page;
    if (page.length < limit) return;
    const last = page[page.length - 1]!;
    after = { created: last.created, id: last.id };
  }
}

/**
 * A page of a list held whole in memory in the order of a text key (balances by asset code,
 * event types by type): the rows after (or, backward, before) the cursor's key, nearest first,
 * cut by `pageWindow`, with cursors keyed by that text.
 */
export function pageByKey<R>(
  all: readonly R[],
  keyOf: (row: R) => string,
  limit: number,
  start: PageStart,
  codec: CursorCodec,
  binding: CursorBinding,
): ListEnvelope<R> {
  const from = start.position?.id;
  const fetched = start.direction === "forward" ? all.filter((r) => from === undefined || keyOf(r) > from) : all.filter((r) => keyOf(r) < from!).reverse();
  const window = pageWindow(
    fetched,
    limit,
    start,
    (r) => codec.encode({ created: 0, id: keyOf(r) }, binding),
    (position) => codec.encode(position, binding),
  );
  return { object: "list", data: window.rows, has_more: window.hasMore, next_cursor: window.next, previous_cursor: window.previous };
}

/**
 * One page of a keyset list: decodes and checks the cursor against the account, list and
 * filters, asks storage for `limit + 1` rows from it in the direction asked (`ending_before`
 * reads the list backwards) to learn `has_more`, and mints the cursors of the pages on either side.
 */
export async function listPage<R, T>(req: ListPageRequest<R, T>): Promise<Result<ListEnvelope<T>, ApiError>> {
  const { params } = req;
  const binding = cursorBinding(req.accountId, req.list, [
    params.created_gte ?? null,
    params.created_lt ?? null,
    params.search ?? null,
    req.status ?? null,
    req.extraBinding ?? null,
  ]);
  const start = pageStart(req.codec, params, binding);
  if (start.isErr()) return err(start.error);
  const limit = params.limit ?? DEFAULT_LIMIT;
  const query: KeysetQuery = { accountId: req.accountId, limit: limit + 1 };
  if (req.status !== undefined) query.status = req.status;
  if (params.created_gte !== undefined) query.createdGte = params.created_gte;
  if (params.created_lt !== undefined) query.createdLt = params.created_lt;
  if (params.search !== undefined) {
    const match = metadataSearch(params.search);
    if (match) query.metadata = match;
    else query.search = params.search;
  }
  if (start.value.position) query.after = start.value.position;
  if (start.value.direction === "backward") query.order = "asc";
  const rows = await req.fetch(query);
  const window = pageWindow(
    rows,
    limit,
    start.value,
    (row) => req.codec.encode(req.position(row), binding),
    (position) => req.codec.encode(position, binding),
  );
  const data: T[] = [];
  for (const row of window.rows) data.push(await req.present(row));
  return ok({ object: "list", data, has_more: window.hasMore, next_cursor: window.next, previous_cursor: window.previous });
}

/**
 * A list call: a promise of its first page that is also an async iterator over every item of the
 * list, page after page (Stripe's auto-pagination), so a host writes either
 * `await engine.payouts.list(ctx, { limit: 100 })` or `for await (const p of engine.payouts.list(ctx))`.
 * Iterating throws the `ApiError` a page answers with (a bad filter, a foreign cursor).
 */
export type PagedList<T> = Promise<Result<ListEnvelope<T>, ApiError>> & AsyncIterable<T>;

/**
 * Makes `fetch(params)` a `PagedList`: the first page is asked at once, the next on demand, in
 * the direction the params ask. With `ending_before` it walks backwards through
 * `previous_cursor`, nearest first (each page's items in reverse, as stripe-node does), so the
 * walk is one order: oldest to newest from the cursor.
 */
export function pagedList<T, P extends { starting_after?: string; ending_before?: string }>(
  params: P,
  fetch: (params: P) => Promise<Result<ListEnvelope<T>, ApiError>>,
): PagedList<T> {
  const first = fetch(params);
  const backward = params.ending_before !== undefined;
  async function* items(): AsyncGenerator<T> {
    let page = await first;
    for (;;) {
      if (page.isErr()) throw page.error;
      yield* backward ? [...page.value.data].reverse() : page.value.data;
      const cursor = backward ? page.value.previous_cursor : page.value.next_cursor;
      if (!page.value.has_more || cursor === null) return;
      page = await fetch(backward ? { ...params, ending_before: cursor } : { ...params, starting_after: cursor });
    }
  }
  return Object.assign(first, { [Symbol.asyncIterator]: items });
}

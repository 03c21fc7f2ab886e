import { err, ok, type Result } from "neverthrow";
import type { ApiError } from "../errors";
import type { KeysetQuery } from "../ports/storage";
import type { CursorCodec, CursorPosition } from "./cursor-codec";
import { DEFAULT_LIMIT, type ListParams } from "./list-params";

/** The list envelope of DECISIONS.md §5. */
export interface ListEnvelope<T> {
  object: "list";
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
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
 * One page of a keyset list: decodes and checks the cursor against the account, list and
 * filters, asks storage for `limit + 1` rows to learn `has_more`, and mints the next cursor from
 * the last row returned.
 */
export async function listPage<R, T>(req: ListPageRequest<R, T>): Promise<Result<ListEnvelope<T>, ApiError>> {
  const { params } = req;
  const binding = {
    accountId: req.accountId,
    list: req.list,
    filters: JSON.stringify([params.created_gte ?? null, params.created_lt ?? null, params.search ?? null, req.status ?? null, req.extraBinding ?? null]),
  };
  let after: CursorPosition | undefined;
  if (params.starting_after !== undefined) {
    const decoded = req.codec.decode(params.starting_after, binding);
    if (decoded.isErr()) return err(decoded.error);
    after = decoded.value;
  }
  const limit = params.limit ?? DEFAULT_LIMIT;
  const query: KeysetQuery = { accountId: req.accountId, limit: limit + 1 };
  if (req.status !== undefined) query.status = req.status;
  if (params.created_gte !== undefined) query.createdGte = params.created_gte;
  if (params.created_lt !== undefined) query.createdLt = params.created_lt;
  if (params.search !== undefined) query.search = params.search;
  if (after) query.after = after;
  const rows = await req.fetch(query);
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const data: T[] = [];
  for (const row of page) data.push(await req.present(row));
  const last = page[page.length - 1];
  return ok({
    object: "list",
    data,
    has_more: hasMore,
    next_cursor: hasMore && last ? req.codec.encode(req.position(last), binding) : null,
  });
}

/**
 * A list call: a promise of its first page that is also an async iterator over every item of the
 * list, page after page (Stripe's auto-pagination), so a host writes either
 * `await engine.payouts.list(ctx, { limit: 100 })` or `for await (const p of engine.payouts.list(ctx))`.
 * Iterating throws the `ApiError` a page answers with (a bad filter, a foreign cursor).
 */
export type PagedList<T> = Promise<Result<ListEnvelope<T>, ApiError>> & AsyncIterable<T>;

/** Makes `fetch(params)` a `PagedList`: the first page is asked at once, the next on demand. */
export function pagedList<T, P extends { starting_after?: string }>(params: P, fetch: (params: P) => Promise<Result<ListEnvelope<T>, ApiError>>): PagedList<T> {
  const first = fetch(params);
  async function* items(): AsyncGenerator<T> {
    let page = await first;
    for (;;) {
      if (page.isErr()) throw page.error;
      yield* page.value.data;
      if (!page.value.has_more || page.value.next_cursor === null) return;
      page = await fetch({ ...params, starting_after: page.value.next_cursor });
    }
  }
  return Object.assign(first, { [Symbol.asyncIterator]: items });
}

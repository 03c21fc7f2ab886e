import type { ListOf } from "./api-client";
import { pause } from "./io";

export interface TailOptions<T> {
  /** One page of the list, newest first, from `createdGte` (epoch ms) down. */
  fetchPage(createdGte: number, cursor: string | undefined, signal: AbortSignal): Promise<ListOf<T>>;
  /**
   * Resolves once some row created at or after `createdGte` may exist (a long-poll), or after a
   * while anyway. Without it the tail looks again every `intervalMs`.
   */
  waitForNew?(createdGte: number, signal: AbortSignal): Promise<void>;
  intervalMs?: number;
  /**
   * How far back each look reaches behind the newest row seen: a row whose transaction commits
   * after a newer one (its `created` is older) is still found if it commits within this window.
   */
  lookbackMs?: number;
  /** Rows created at or before this moment (epoch ms, the host's clock) exist already and are not shown. */
  startAt: number;
  created(row: T): number;
  id(row: T): string;
  /** New rows, oldest first. */
  onRows(rows: T[]): void;
  /** The host could not be reached or refused; the tail keeps trying (with backoff) after telling. */
  onError(error: unknown): void;
}

const PAGE = 200;

/**
 * Follows a newest-first list as it grows (events, a delivery log): each look reads from the
 * newest row seen minus a look-back window, page by page, and hands over the rows not seen
 * before, oldest first. Keyset lists have no "newer than" cursor, and transactions commit out of
 * `created` order, so rows are recognised by id within the window rather than by position.
 * Runs until `signal` aborts.
 */
export async function tail<T>(options: TailOptions<T>, signal: AbortSignal): Promise<void> {
  const lookback = options.lookbackMs ?? 10_000;
  const seen = new Map<string, number>();
  let newest = options.startAt;
  let first = true;
  let failures = 0;
  while (!signal.aborted) {
    try {
      if (!first) {
        if (options.waitForNew) await options.waitForNew(newest + 1, signal);
        else await pause(options.intervalMs ?? 1_000, signal);
        if (signal.aborted) return;
      }
      const fresh: T[] = [];
      let cursor: string | undefined;
      const from = newest - lookback;
      do {
        const page = await options.fetchPage(from, cursor, signal);
        for (const row of page.data) {
          const id = options.id(row);
          if (seen.has(id)) continue;
          const created = options.created(row);
          seen.set(id, created);
          // the first look only learns what exists already
          if (!first || created > options.startAt) fresh.push(row);
        }
        cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
      } while (cursor && !signal.aborted);
      first = false;
      failures = 0;
      fresh.sort((a, b) => options.created(a) - options.created(b) || (options.id(a) < options.id(b) ? -1 : 1));
      for (const row of fresh) newest = Math.max(newest, options.created(row));
      if (fresh.length) options.onRows(fresh);
      for (const [id, created] of seen) if (created < newest - lookback - 1_000) seen.delete(id);
    } catch (e) {
      if (signal.aborted) return;
      failures++;
      options.onError(e);
      await pause(Math.min(10_000, 500 * 2 ** Math.min(failures, 5)), signal);
    }
  }
}

export { PAGE as TAIL_PAGE };

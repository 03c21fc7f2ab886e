import type { Json } from "./json";
import type { KeysetQuery } from "./resources";

/**
 * Events: the outbox.
 */

export interface EventRecord {
  accountId: string;
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  /** The envelope's `data` member: `{ object: <resource snapshot> }`. */
  data: Json;
  /** The envelope's `request` member. */
  request: { id: string | null; idempotency_key: string | null };
}

export interface EventStore {
  /** Appends outbox events; written in the same transaction as the change they describe. */
  insert(events: EventRecord[]): Promise<void>;
  get(accountId: string, id: string): Promise<EventRecord | null>;
  /** The events of the account among `ids` (in no particular order; missing ids are left out). */
  getMany(accountId: string, ids: readonly string[]): Promise<EventRecord[]>;
  /** One keyset page; `status` filters on the event type. */
  list(query: KeysetQuery): Promise<EventRecord[]>;
  /**
   * Deletes events created before `before` (retention), at most `limit` of them one by one;
   * returns how many went. A store that keeps events by day may drop whole days before
   * `before` at once besides, and count them: more than `limit` then means there may be more.
   */
  pruneBefore(before: number, limit: number): Promise<number>;
}

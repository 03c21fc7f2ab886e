import type { KeysetQuery } from "./resources";

/**
 * The webhook delivery log: one row per attempt, kept 7 days.
 */

export interface DeliveryLogRecord {
  accountId: string;
  /** `dlv_…`, also sent as the attempt's `Service-Delivery` header. */
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** 1-based, as sent in `Service-Attempt`. */
  attempt: number;
  /** What caused the delivery: `scheduled` (an event), `replay`, `manual`. */
  trigger: string;
  /** `succeeded` (2xx) or `failed`; indexed for the list filter. */
  status: string;
  /** The receiver's HTTP status, or null when none came (timeout, refused, reset). */
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  created: number;
  /** When the next attempt is due; null when there is none (acknowledged, gone, gave up). */
  nextAttemptAt: number | null;
}

export interface DeliveryLogStore {
  /** Appends attempts; written in the transaction that settles the attempt's work item. */
  insert(records: DeliveryLogRecord[]): Promise<void>;
  /**
   * One keyset page of one endpoint's attempts; `status` filters on the status column, `eventId`
   * keeps one event's attempts.
   */
  list(query: KeysetQuery & { endpointId: string; eventId?: string }): Promise<DeliveryLogRecord[]>;
  /** Deletes attempts created before `before` (retention); returns how many. */
  pruneBefore(before: number, limit: number): Promise<number>;
}

import type { DomainObservation } from "./domain-observations";

export type * from "./domain-observations";

/**
 * The observer port: what the engine reports while it works, so a host can export metrics or
 * traces (Prometheus through `payrail/adapters/prometheus`, OpenTelemetry, statsd, logs) without
 * the core depending on any of them. Pass one to `createEngine({ observer })`; several combine
 * with `combineObservers`.
 *
 * Every member is called synchronously, on the hot path, after the fact it reports: it must be
 * cheap and must not block (record a number, do no I/O). The core wraps the observer, so one that
 * throws loses that observation and never fails the engine's work. Durations are milliseconds on
 * the engine's clock (whole milliseconds on the system clock; zero under a manual clock), except
 * `RequestObservation.durationMs`, which the HTTP binding measures with a monotonic timer.
 *
 * Gauges (the depth and age of due work) are read, not pushed: call `engine.dueWorkStats()` from
 * the exporter's collection callback.
 */
export interface EngineObserver {
  /** The /v1 HTTP binding answered a request (every status, errors included). */
  requestCompleted(observation: RequestObservation): void;
  /** A due-work item ran in this process, with what its handler decided. */
  workCompleted(observation: WorkObservation): void;
  /** A webhook attempt came back (answered, refused, timed out) and was recorded. */
  deliveryAttempted(observation: DeliveryObservation): void;
  /**
   * A transaction committed ledger postings: called once per asset it posted to, after the
   * commit (a rolled-back transaction reports nothing).
   */
  ledgerPosted(observation: LedgerObservation): void;
  /** A transaction committed events: called once per event type, after the commit. */
  eventsEmitted(observation: EventsObservation): void;
  /** A call into a chain, venue or screening adapter returned or threw. */
  adapterCalled(observation: AdapterCallObservation): void;
  /**
   * Something of the business happened (`DomainObservation`): a payout or leg finished (after the
   * commit), a deposit was detected (after the commit), a hot wallet's balance was read, or a chain
   * adapter reported its chain (head, reorganisation, a re-sent or replaced transaction).
   * Optional, so an observer written before it still compiles; the core always calls it guarded.
   */
  domainObserved?(observation: DomainObservation): void;
}

export interface RequestObservation {
  method: string;
  /** The route's template (`/v1/payouts/:id`), never the raw path; `unmatched` when none matched. */
  route: string;
  status: number;
  durationMs: number;
  /** `req_…`, as sent in the `Request-Id` header. */
  requestId: string;
  /**
   * The client's `X-Request-Id` when it was well-formed (`isCorrelationId`), else the request id:
   * what the client and the host's logs share for this request.
   */
  correlationId?: string;
  /** The authenticated account, when the key was accepted (a log field; never a metric label). */
  accountId?: string | null;
  /** The API key's id (never its secret), when the key was accepted. */
  keyId?: string | null;
  /** The request's `Idempotency-Key`, when it sent one. */
  idempotencyKey?: string | null;
}

/**
 * What a handler decided: `done` and `settled` finished the item, `retry` failed (a throw, or
 * a handler asking to run again after a failure), `reschedule` is recurring work coming back,
 * `dead` failed for the last time.
 */
export type WorkOutcomeKind = "done" | "settled" | "retry" | "reschedule" | "dead";

export interface WorkObservation {
  kind: string;
  outcome: WorkOutcomeKind;
  durationMs: number;
  /** How many times the item has been claimed, this run included. */
  attempt: number;
  /** The item's id (a log field; never a metric label). */
  id?: string;
  /** The `req_…` of the API request that started the item's chain of work, or null (a log field). */
  requestId?: string | null;
}

/**
 * `succeeded`: a 2xx; `http_error`: another status; `network_error`: no answer (refused, reset,
 * timeout, refused address); `gone`: a 410, which disables the endpoint.
 */
export type DeliveryOutcomeKind = "succeeded" | "http_error" | "network_error" | "gone";

export interface DeliveryObservation {
  endpoint: string;
  eventType: string;
  outcome: DeliveryOutcomeKind;
  /** The receiver's status, or null when it did not answer. */
  responseStatus: number | null;
  latencyMs: number;
  attempt: number;
}

export interface LedgerObservation {
  asset: string;
  /** Balanced postings (each nets to zero per asset) the transaction wrote for this asset. */
  postings: number;
  /** Ledger entries (lines) those postings wrote. */
  entries: number;
}

export interface EventsObservation {
  type: string;
  count: number;
}

export interface AdapterCallObservation {
  /** Which port: `chain`, `venue` or `screening`. */
  port: "chain" | "venue" | "screening";
  /** The adapter's `name`. */
  adapter: string;
  /** The method called, e.g. `broadcast`, `snapshot`. */
  operation: string;
  durationMs: number;
  /** It threw (the core saw an `AdapterError`). A result that reports a failure is not an error. */
  failed: boolean;
}

/** The members of `EngineObserver`, for code that wraps every one of them. */
export const OBSERVER_MEMBERS = [
  "requestCompleted",
  "workCompleted",
  "deliveryAttempted",
  "ledgerPosted",
  "eventsEmitted",
  "adapterCalled",
  "domainObserved",
] as const satisfies readonly (keyof EngineObserver)[];

/** An observer that records nothing: the default. */
export const NO_OBSERVER: EngineObserver = {
  requestCompleted: () => undefined,
  workCompleted: () => undefined,
  deliveryAttempted: () => undefined,
  ledgerPosted: () => undefined,
  eventsEmitted: () => undefined,
  adapterCalled: () => undefined,
  domainObserved: () => undefined,
};

/**
 * One observer that tells each of `observers` in turn; one that throws does not keep the others
 * from hearing (the first error is rethrown once all have been told).
 */
export function combineObservers(...observers: EngineObserver[]): EngineObserver {
  const each =
    <K extends keyof EngineObserver>(member: K) =>
    (observation: Parameters<NonNullable<EngineObserver[K]>>[0]) => {
      let failure: { error: unknown } | null = null;
      for (const o of observers) {
        try {
          (o[member] as ((x: typeof observation) => void) | undefined)?.call(o, observation);
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure) throw failure.error;
    };
  return Object.fromEntries(OBSERVER_MEMBERS.map((m) => [m, each(m)])) as unknown as EngineObserver;
}

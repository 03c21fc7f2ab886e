import { signatureHeader } from "../../../src/events/signing";
import { IdGenerator } from "../../../src/ids";
import { SystemClock } from "../../clock/system-clock";
import type { EventEnvelope } from "../api-client";
import { resourceKey } from "../output";

/** What one forwarding attempt came to, for the command's output. */
export interface ForwardAttempt {
  event: EventEnvelope;
  /** The resource the event is ordered under (see `resourceKey`). */
  resource: string;
  attempt: number;
  /** The local receiver's status, or null when it did not answer. */
  status: number | null;
  latencyMs: number;
  /** Why it failed (`HTTP 500`, `connect ECONNREFUSED …`, `timed out after 10000 ms`), or null. */
  error: string | null;
  /** `delivered`, `retrying` (after `retryInMs`), or `gave_up` after the last attempt. */
  outcome: "delivered" | "retrying" | "gave_up";
  retryInMs: number | null;
  /**
   * A newer event of the same resource was forwarded before this one (it reached this listener
   * late, for instance a replay). Forwarded anyway: receivers apply an event only if it is newer.
   */
  late: boolean;
}

export interface ForwarderOptions {
  /** The local receiver, e.g. `http://localhost:3000/webhooks`. */
  target: string;
  /** Signs each attempt as the host would (`Service-Signature`, Stripe's scheme). */
  secret: string;
  /** Attempts per event before it is given up (default 6). */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to `retryMaxMs` (default 1 s, 30 s). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** An attempt is cut after this (default 10 s, as the host does). */
  timeoutMs?: number;
  /**
   * How long the first event of an idle resource waits for others of the same resource that may
   * be arriving at the same moment on parallel connections, so they go out in order (default 50 ms).
   */
  orderWindowMs?: number;
  onAttempt(attempt: ForwardAttempt): void;
}

interface Queued {
  raw: string;
  event: EventEnvelope;
  attempts: number;
}

interface ResourceQueue {
  items: Queued[];
  /** An attempt is in flight or a retry is waiting: nothing else of this resource goes out. */
  busy: boolean;
  timer: NodeJS.Timeout | null;
  /** The newest event id forwarded (delivered or given up) for this resource. */
  newest: string | null;
}

/**
 * Forwards events to a local receiver, one resource at a time in event order: events of one
 * resource go out oldest first and never overtake each other (a failing one holds the later ones
 * back while it is retried), while different resources proceed independently. Each attempt is
 * signed afresh with the listener's secret, with a delivery id and an attempt number, as the
 * host signs its own deliveries; failures (non-2xx, no answer, timeout) are retried with
 * exponential backoff, up to `maxAttempts`.
 */
export class Forwarder {
  private readonly queues = new Map<string, ResourceQueue>();
  private readonly inflight = new Set<Promise<void>>();
  private readonly ids = new IdGenerator(new SystemClock());
  private readonly stopping = new AbortController();
  private readonly opts: Required<Omit<ForwarderOptions, "onAttempt">> & Pick<ForwarderOptions, "onAttempt">;
  delivered = 0;
  gaveUp = 0;

  constructor(options: ForwarderOptions) {
    this.opts = {
      maxAttempts: 6,
      retryBaseMs: 1_000,
      retryMaxMs: 30_000,
      timeoutMs: 10_000,
      orderWindowMs: 50,
      ...options,
    };
  }

  /** Queues an event (`raw` is its JSON exactly as it will be sent and signed). */
  enqueue(raw: string, event: EventEnvelope): void {
    if (this.stopping.signal.aborted) return;
    const key = resourceKey(event);
    let q = this.queues.get(key);
    if (!q) this.queues.set(key, (q = { items: [], busy: false, timer: null, newest: null }));
    // sorted by event id (time-ordered), so an event that arrived a moment late still goes first
    let at = q.items.length;
    while (at > 0 && q.items[at - 1]!.event.id > event.id) at--;
    q.items.splice(at, 0, { raw, event, attempts: 0 });
    if (!q.busy && !q.timer) q.timer = setTimeout(() => this.pump(key), this.opts.orderWindowMs);
  }

  /** Events queued and not yet delivered or given up. */
  get pending(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.items.length;
    return n;
  }

  /**
   * Stops: no new attempt starts, retries waiting are dropped, attempts in flight get up to
   * `graceMs` to finish. Resolves with how many events were left undelivered.
   */
  async close(graceMs = 2_000): Promise<{ pending: number }> {
    this.stopping.abort();
    for (const q of this.queues.values()) if (q.timer) clearTimeout(q.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.inflight), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    return { pending: this.pending };
  }

  private pump(key: string): void {
    const q = this.queues.get(key)!;
    q.timer = null;
    if (q.busy || this.stopping.signal.aborted) return;
    const head = q.items[0];
    if (!head) return; // the queue stays, remembering the newest event it forwarded
    q.busy = true;
    const running = this.attempt(key, q, head).finally(() => this.inflight.delete(running));
    this.inflight.add(running);
  }

  private async attempt(key: string, q: ResourceQueue, item: Queued): Promise<void> {
    item.attempts++;
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(this.opts.target, {
        method: "POST",
        redirect: "manual",
        headers: this.headers(item),
        body: item.raw,
        signal: AbortSignal.any([AbortSignal.timeout(this.opts.timeoutMs), this.stopping.signal]),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    } catch (e) {
      error =
        e instanceof Error && e.name === "TimeoutError"
          ? `timed out after ${this.opts.timeoutMs} ms`
          : e instanceof Error && e.cause instanceof Error
            ? e.cause.message
            : e instanceof Error
              ? e.message
              : String(e);
    }
    if (this.stopping.signal.aborted) return; // cut by close(): left pending, not reported
    const latencyMs = Math.round(performance.now() - started);
    const late = q.newest !== null && q.newest > item.event.id;
    const ok = error === null;
    // a 410 is final, as the host treats it; anything else is retried
    const retryable = !ok && status !== 410 && item.attempts < this.opts.maxAttempts;
    const retryInMs = retryable ? Math.min(this.opts.retryMaxMs, this.opts.retryBaseMs * 2 ** (item.attempts - 1)) : null;
    const outcome = ok ? "delivered" : retryable ? "retrying" : "gave_up";
    this.opts.onAttempt({ event: item.event, resource: key, attempt: item.attempts, status, latencyMs, error, outcome, retryInMs, late });
    if (outcome === "retrying") {
      q.busy = false;
      q.timer = setTimeout(() => this.pump(key), retryInMs!);
      return;
    }
    if (ok) this.delivered++;
    else this.gaveUp++;
    q.items.splice(q.items.indexOf(item), 1);
    if (q.newest === null || item.event.id > q.newest) q.newest = item.event.id;
    q.busy = false;
    this.pump(key);
  }

  private headers(item: Queued): Record<string, string> {
    return {
      "Content-Type": "application/json",
      "User-Agent": "payrail-listen",
      "Service-Signature": signatureHeader(item.raw, [this.opts.secret], Math.floor(Date.now() / 1000)),
      "Service-Event": item.event.type,
      "Service-Delivery": this.ids.next("dlv"),
      "Service-Attempt": String(item.attempts),
    };
  }
}

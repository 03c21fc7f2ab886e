import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../adapters/clock";
import { EVENTS_PER_DELIVERY } from "../../../src/events/delivery-work";
import { DELIVERY_WINDOW_MS, MAX_DELIVERY_ATTEMPTS } from "../../../src/events/retry-schedule";
import { verifyWebhookSignature } from "../../../src/events/signing";
import { IdGenerator } from "../../../src/ids";
import type { DeliveryResult } from "../../../src/ports/delivery";
import type { EventRecord } from "../../../src/ports/storage";
import { DEFAULT_CATALOGUE } from "../../../src/modules";
import { fannedOut } from "../../../src/resources/webhook-endpoints/delivery-fan-out";
import type { PreparedDelivery } from "../../../src/resources/webhook-endpoints/delivery-read";
import { followUps, logEntry } from "../../../src/resources/webhook-endpoints/delivery-record";
import { attemptOutcome, signedAttempt, type SentAttempt } from "../../../src/resources/webhook-endpoints/delivery-send";

/**
 * The pure parts of the delivery stages, without storage or a receiver: what an attempt's result
 * means, what the log records of it, which items carry an item's events on, and what a fan-out
 * makes of one transaction's events. The stages themselves run in the other webhook tests.
 */

const NOW = Date.UTC(2026, 5, 1, 12);
const noJitter = () => 0.5;
const response = (status: number, retryAfterSeconds: number | null = null): DeliveryResult => ({ kind: "response", status, retryAfterSeconds, latencyMs: 7 });

function event(id: string, type = "payout.settled"): EventRecord {
  return { accountId: "acct_1", id, type, created: NOW, livemode: false, data: { object: { id: "po_1" } }, request: { id: null, idempotency_key: null } };
}

function delivery(events: EventRecord[], attempt = 1): PreparedDelivery {
  return {
    job: {
      id: "job_1",
      kind: "webhook.deliver",
      payload: { endpoint: "we_1", events: events.map((e) => e.id), trigger: "scheduled" },
      accountId: "acct_1",
      livemode: false,
      request: null,
      attempts: 1,
      leaseOwner: "wrk_1",
      leaseUntil: NOW + 60_000,
      created: NOW - 1_000,
    },
    endpoint: {
      id: "we_1",
      state: "enabled",
      url: "https://example.com/hooks",
      enabledEvents: ["*"],
      description: null,
      livemode: false,
      created: NOW - 10_000,
      secrets: [{ secret: "whsec_current", expiresAt: null }],
    },
    revision: 0,
    events,
    attempt,
    first: NOW - 1_000,
    trigger: "scheduled",
  };
}

const ids = () => new IdGenerator(new ManualClock(NOW), () => new Uint8Array(16));

/** One attempt of `e` in `d` that came back with `result`. */
function sent(d: PreparedDelivery, e: EventRecord, result: DeliveryResult, deliveryId: string): SentAttempt {
  const prepared = { ...signedAttempt({ clock: new ManualClock(NOW), ids: ids(), config: { webhookTimeoutMs: 10_000 } }, d, e), deliveryId };
  return { prepared, result, outcome: attemptOutcome(result, d.attempt, d.first, NOW, noJitter), at: NOW };
}

describe("attemptOutcome", () => {
  it("acknowledges any 2xx, and draws no jitter for it", () => {
    const jitter = () => {
      throw new Error("a success needs no jitter");
    };
    expect(attemptOutcome(response(204), 1, NOW, NOW, jitter)).toEqual({ status: "succeeded", responseStatus: 204, error: null, gone: false, next: null });
  });

  it("stops for good at a 410", () => {
    expect(attemptOutcome(response(410), 1, NOW, NOW, noJitter)).toEqual({
      status: "failed",
      responseStatus: 410,
      error: "410 Gone: endpoint disabled",
      gone: true,
      next: null,
    });
  });

  it("retries anything else at its slot, a 429's Retry-After pushing it later", () => {
    expect(attemptOutcome(response(500), 1, NOW, NOW, noJitter)).toMatchObject({ status: "failed", error: "HTTP 500", gone: false, next: NOW + 5_000 });
    expect(attemptOutcome(response(429, 90), 1, NOW, NOW, noJitter).next).toBe(NOW + 90_000);
    // a 500's Retry-After does not count
    expect(attemptOutcome(response(500, 90), 1, NOW, NOW, noJitter).next).toBe(NOW + 5_000);
    const network = attemptOutcome({ kind: "error", error: "ECONNRESET", latencyMs: 3 }, 2, NOW, NOW, noJitter);
    expect(network).toMatchObject({ status: "failed", responseStatus: null, error: "ECONNRESET", next: NOW + 300_000 });
  });

  it("gives up after the last attempt or past the 24 hours", () => {
    expect(attemptOutcome(response(503), MAX_DELIVERY_ATTEMPTS, NOW, NOW, noJitter).next).toBeNull();
    expect(attemptOutcome(response(503), 2, NOW - DELIVERY_WINDOW_MS, NOW, noJitter).next).toBeNull();
  });
});

describe("signedAttempt", () => {
  it("signs the event's envelope with the endpoint's secrets, under the item's attempt number", () => {
    const e = event("evt_1");
    const attempt = signedAttempt({ clock: new ManualClock(NOW), ids: ids(), config: { webhookTimeoutMs: 10_000 } }, delivery([e], 3), e);
    expect(attempt).toMatchObject({ endpointId: "we_1", event: e, attempt: 3, trigger: "scheduled" });
    expect(attempt.deliveryId).toMatch(/^dlv_/);
    const { request } = attempt;
    expect(request).toMatchObject({ url: "https://example.com/hooks", timeoutMs: 10_000 });
    expect(request.headers).toMatchObject({ "Service-Event": "payout.settled", "Service-Delivery": attempt.deliveryId, "Service-Attempt": "3" });
    expect(JSON.parse(request.body)).toMatchObject({ id: "evt_1", object: "event", type: "payout.settled" });
    expect(verifyWebhookSignature(request.body, request.headers["Service-Signature"], "whsec_current", { now: NOW }).valid).toBe(true);
  });
});

describe("logEntry", () => {
  it("records the attempt as the receiver saw it, with its outcome and next attempt", () => {
    const e = event("evt_1");
    const d = delivery([e], 2);
    expect(logEntry(d.job, sent(d, e, response(503), "dlv_a"))).toEqual({
      accountId: "acct_1",
      id: "dlv_a",
      endpointId: "we_1",
      eventId: "evt_1",
      eventType: "payout.settled",
      attempt: 2,
      trigger: "scheduled",
      status: "failed",
      responseStatus: 503,
      latencyMs: 7,
      error: "HTTP 503",
      created: NOW,
      nextAttemptAt: NOW + 300_000,
    });
  });
});

describe("followUps", () => {
  it("carries each failure on alone at its slot under the next number, and the rest now under the same", () => {
    const [a, b, c, rest] = [event("evt_a"), event("evt_b"), event("evt_c"), event("evt_d")];
    const d = delivery([a!, b!, c!, rest!], 2);
    const item = {
      delivery: d,
      sent: [sent(d, a!, response(200), "dlv_a"), sent(d, b!, response(500), "dlv_b"), sent(d, c!, response(429, 600), "dlv_c")],
      rest: [rest!.id],
    };
    const out = followUps(item, NOW, ids());
    expect(out.map((w) => [w.payload, w.runAt, w.group, w.accountId, w.kind])).toEqual([
      [{ endpoint: "we_1", events: ["evt_b"], trigger: "scheduled", attempt: 3, first: d.first }, NOW + 300_000, "we_1", "acct_1", "webhook.deliver"],
      [{ endpoint: "we_1", events: ["evt_c"], trigger: "scheduled", attempt: 3, first: d.first }, NOW + 600_000, "we_1", "acct_1", "webhook.deliver"],
      [{ endpoint: "we_1", events: ["evt_d"], trigger: "scheduled", attempt: 2, first: d.first }, NOW, "we_1", "acct_1", "webhook.deliver"],
    ]);
  });

  it("carries nothing on after a 410", () => {
    const [a, b, rest] = [event("evt_a"), event("evt_b"), event("evt_c")];
    const d = delivery([a!, b!, rest!]);
    expect(
      followUps({ delivery: d, sent: [sent(d, a!, response(500), "dlv_a"), sent(d, b!, response(410), "dlv_b")], rest: [rest!.id] }, NOW, ids()),
    ).toHaveLength(1);
    expect(followUps({ delivery: d, sent: [sent(d, a!, response(410), "dlv_a")], rest: [b!.id, rest!.id] }, NOW, ids())).toEqual([]);
  });
});

describe("fannedOut", () => {
  it("gives each endpoint the events it subscribes to, in items of at most EVENTS_PER_DELIVERY, order kept", () => {
    const events = Array.from({ length: EVENTS_PER_DELIVERY + 6 }, (_, i) => ({
      id: `evt_${String(i).padStart(3, "0")}`,
      type: i % 2 ? "swap.settled" : "payout.settled",
    }));
    const items = fannedOut(
      events,
      [
        { id: "we_all", enabledEvents: ["*"] },
        { id: "we_swaps", enabledEvents: ["swap.settled"] },
        { id: "we_none", enabledEvents: ["payout.created"] },
      ],
      DEFAULT_CATALOGUE,
    );
    expect(items.map((i) => [i.endpoint, i.events.length])).toEqual([
      ["we_all", 35],
      ["we_all", 35],
      ["we_swaps", 35],
    ]);
    expect(items.filter((i) => i.endpoint === "we_all").flatMap((i) => i.events)).toEqual(events.map((e) => e.id));
    expect(items.find((i) => i.endpoint === "we_swaps")!.events).toEqual(events.filter((e) => e.type === "swap.settled").map((e) => e.id));
  });

  it('gives the audit log\'s events only to endpoints that name them: "*" does not include them', () => {
    const events = [
      { id: "evt_1", type: "api_key.created" },
      { id: "evt_2", type: "payout.settled" },
      { id: "evt_3", type: "webhook_endpoint.updated" },
    ];
    const items = fannedOut(
      events,
      [
        { id: "we_all", enabledEvents: ["*"] },
        { id: "we_security", enabledEvents: ["api_key.created", "webhook_endpoint.updated"] },
      ],
      DEFAULT_CATALOGUE,
    );
    expect(items).toEqual([
      { endpoint: "we_all", events: ["evt_2"] },
      { endpoint: "we_security", events: ["evt_1", "evt_3"] },
    ]);
  });
});

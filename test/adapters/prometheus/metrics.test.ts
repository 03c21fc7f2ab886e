import parsePrometheusTextFormat, { type PromFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { NO_OBSERVER, type EngineObserver } from "../../../src/ports/observer";
import { testWorld } from "../../support/engine";
import { TestReceiver, ok, status } from "../../support/receiver";
import { storageKinds } from "../../support/storage";

/** Issue 13: `GET /metrics` in the Prometheus text format, read by an independent parser, moving as work is done. */
describe("metrics on the host", () => {
  let host: RunningHost;
  let receiver: TestReceiver;
  beforeAll(async () => {
    receiver = await TestReceiver.start();
    host = await startHost({ port: 0, storage: createMemoryStorage(), allowPrivateWebhooks: true, metricsEndpointLabels: true });
  });
  afterAll(async () => {
    await host.stop();
    await receiver.close();
  });

  const scrape = async (): Promise<Map<string, PromFamily>> => {
    const res = await fetch(`${host.url}/metrics`); // no API key
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return new Map(parsePrometheusTextFormat(await res.text()).map((f) => [f.name, f]));
  };
  const scrapeUntil = async (done: (m: Map<string, PromFamily>) => boolean) => {
    const started = Date.now();
    for (;;) {
      const m = await scrape();
      if (done(m)) return m;
      if (Date.now() - started > 20_000) throw new Error("the metrics never got there");
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** The value of the sample of `name` whose labels include `labels` (0 when there is none). */
  const value = (m: Map<string, PromFamily>, name: string, labels: Record<string, string> = {}) => {
    const sample = m.get(name)?.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
    return Number(sample?.value ?? sample?.count ?? 0);
  };
  const api = (path: string, body?: unknown) =>
    fetch(`${host.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json", "idempotency-key": `m-${Math.random()}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }).then((r) => r.json() as Promise<any>);

  it("parses, names every family the issue asks for, and moves as requests, events, postings, deliveries and chain calls happen", async () => {
    const before = await scrape();
    for (const [name, type] of [
      ["payrail_http_requests_total", "COUNTER"],
      ["payrail_http_request_duration_seconds", "HISTOGRAM"],
      ["payrail_due_work_items", "GAUGE"],
      ["payrail_due_work_oldest_age_seconds", "GAUGE"],
      ["payrail_work_runs_total", "COUNTER"],
      ["payrail_ledger_postings_total", "COUNTER"],
      ["payrail_events_total", "COUNTER"],
      ["process_cpu_user_seconds_total", "COUNTER"],
    ] as const) {
      expect(before.get(name)?.type, name).toBe(type);
    }
    // the demo account was funded at start: postings on every asset
    expect(value(before, "payrail_ledger_postings_total", { asset: "USDC" })).toBeGreaterThan(0);

    let failOnce = true;
    receiver.behave = () => {
      if (!failOnce) return ok;
      failOnce = false;
      return status(503);
    };
    const endpoint = await api("/v1/webhook_endpoints", { url: receiver.url(), enabled_events: ["payout.settled"] });
    await api("/v1/test_helpers/events/trigger", { type: "payout.settled" });
    const recipient = await api("/v1/recipients", { name: "Metrics", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
    const payout = await api("/v1/payouts", { amount: "3", asset: "USDC", recipient: recipient.id });
    expect(payout.status).toBe("executing");
    await api("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "1" });

    // the first attempt is refused (503): it waits for its 5 s retry, so it shows as scheduled due work
    const during = await scrapeUntil((m) => value(m, "payrail_webhook_attempts_total", { endpoint: endpoint.id }) >= 1);
    expect(value(during, "payrail_webhook_attempts_total", { endpoint: endpoint.id, outcome: "http_error" })).toBe(1);
    expect(value(during, "payrail_due_work_items", { kind: "webhook.deliver", state: "scheduled" })).toBe(1);

    // the payout settled on the simulated chain, its payout.settled delivered
    const after = await scrapeUntil(
      (m) =>
        value(m, "payrail_webhook_attempts_total", { endpoint: endpoint.id, outcome: "succeeded" }) === 1 &&
        value(m, "payrail_events_total", { type: "payout.settled" }) >= 2,
    );
    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    expect(delta("payrail_http_requests_total", { method: "POST", route: "/v1/payouts", status: "200" })).toBe(1);
    expect(delta("payrail_http_requests_total", { method: "POST", route: "/v1/test_helpers/events/trigger", status: "200" })).toBe(1);
    // the parser folds a labelled histogram into one series (its buckets parse, its labels are lost), so
    // the per-label counts of the two histograms are read from the registry's own JSON
    for (const name of ["payrail_http_request_duration_seconds", "payrail_webhook_attempt_duration_seconds"]) {
      expect(after.get(name)?.type).toBe("HISTOGRAM");
      expect(Object.keys(after.get(name)!.metrics[0]!.buckets!)).toContain("+Inf");
    }
    const json = await host.metrics!.registry.getMetricsAsJSON();
    const histogramCount = (name: string, labels: Record<string, string>) =>
      (json.find((m) => m.name === name)?.values ?? []).find(
        (v) => (v as { metricName?: string }).metricName === `${name}_count` && Object.entries(labels).every(([k, l]) => v.labels[k] === l),
      )?.value;
    expect(histogramCount("payrail_http_request_duration_seconds", { method: "POST", route: "/v1/payouts", status: "200" })).toBe(1);
    expect(histogramCount("payrail_webhook_attempt_duration_seconds", { endpoint: endpoint.id })).toBe(2);
    expect(delta("payrail_events_total", { type: "payout.created" })).toBe(1);
    expect(delta("payrail_events_total", { type: "payout.settled" })).toBe(2); // the triggered one and the payout's
    expect(delta("payrail_ledger_postings_total", { asset: "USDC" })).toBeGreaterThanOrEqual(2); // the reservation and the fund
    expect(delta("payrail_ledger_entries_total", { asset: "USDC" })).toBeGreaterThanOrEqual(4);
    expect(value(after, "payrail_webhook_attempts_total", { endpoint: endpoint.id, outcome: "succeeded" })).toBe(1);
    expect(delta("payrail_adapter_calls_total", { port: "chain", adapter: "simulated", result: "ok" })).toBeGreaterThan(0);
    expect(after.get("payrail_adapter_call_duration_seconds")?.type).toBe("HISTOGRAM");
    expect(delta("payrail_work_runs_total", { kind: "webhook.fanout", outcome: "settled" })).toBeGreaterThan(0);
    // an unauthenticated request is counted under its route too
    await fetch(`${host.url}/v1/balances`);
    expect(value(await scrape(), "payrail_http_requests_total", { route: "/v1/balances", status: "401" })).toBe(1);
  }, 30_000);
});

describe("the observer port", () => {
  it("hears postings and events only once committed, and a throwing observer never fails the engine", async () => {
    const heard: string[] = [];
    const observer: EngineObserver = {
      ...NO_OBSERVER,
      ledgerPosted: (o) => heard.push(`ledger ${o.asset} ${o.postings}/${o.entries}`),
      eventsEmitted: (o) => heard.push(`events ${o.type} ${o.count}`),
      workCompleted: () => {
        throw new Error("a broken exporter");
      },
    };
    const errors: unknown[] = [];
    const w = await testWorld(storageKinds()[0]!, { observer, worker: { onError: (e) => errors.push(e) } });
    try {
      await w.request("POST", "/v1/test_helpers/balances/fund", { body: { asset: "USDC", chain: "base", amount: "5" } });
      expect(heard).toEqual(["ledger USDC 1/2", "events balance.updated 1"]);
      // refused (insufficient funds): rolled back, nothing heard
      const refused = await w.request("POST", "/v1/payouts", {
        body: { amount: "500", asset: "USDC", recipient: "rcp_nobody" },
        headers: { "Idempotency-Key": "o-1" },
      });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(heard).toHaveLength(2);
      expect(await w.engine.worker.runDue()).toBeGreaterThan(0); // work still runs
      expect(errors.filter((e) => String(e).includes("a broken exporter"))).toHaveLength(1); // told once
    } finally {
      await w.close();
    }
  });
});

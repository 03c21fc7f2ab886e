import fc from "fast-check";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { PrometheusMetrics } from "../../../adapters/prometheus";
import type { DeliveryObservation } from "../../../src/ports/observer";

const OUTCOMES = ["succeeded", "http_error", "network_error", "gone"] as const;

const attempt = fc.record({
  endpoint: fc.stringMatching(/^we_[a-z0-9]{8}$/),
  eventType: fc.constant("payout.settled"),
  outcome: fc.constantFrom(...OUTCOMES),
  responseStatus: fc.constantFrom(null, 200, 500),
  latencyMs: fc.integer({ min: 0, max: 10_000 }),
  attempt: fc.integer({ min: 1, max: 10 }),
}) as fc.Arbitrary<DeliveryObservation>;

async function attempts(metrics: PrometheusMetrics) {
  const families = parsePrometheusTextFormat((await metrics.scrape()).body);
  return families.find((f) => f.name === "payrail_webhook_attempts_total")?.metrics ?? [];
}

/** Issue 24.5: `/metrics` names no account's webhook endpoints unless the host opts in. */
describe("webhook attempt labels", () => {
  it("count by outcome only by default: no endpoint id in the scrape, the same totals", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(attempt, { maxLength: 30 }), async (observed) => {
        const metrics = new PrometheusMetrics();
        for (const o of observed) metrics.observer.deliveryAttempted(o);
        const { body } = await metrics.scrape();
        for (const o of observed) expect(body).not.toContain(o.endpoint);
        const samples = await attempts(metrics);
        expect(samples.every((s) => Object.keys(s.labels ?? {}).join() === "outcome")).toBe(true);
        for (const outcome of OUTCOMES) {
          const sample = samples.find((s) => s.labels?.outcome === outcome);
          expect(Number(sample?.value ?? 0)).toBe(observed.filter((o) => o.outcome === outcome).length);
        }
      }),
      { numRuns: 50 },
    );
  });

  it("count per endpoint and outcome with endpointLabels", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(attempt, { minLength: 1, maxLength: 30 }), async (observed) => {
        const metrics = new PrometheusMetrics({ endpointLabels: true });
        for (const o of observed) metrics.observer.deliveryAttempted(o);
        const samples = await attempts(metrics);
        for (const o of observed) {
          const sample = samples.find((s) => s.labels?.endpoint === o.endpoint && s.labels?.outcome === o.outcome);
          expect(Number(sample?.value)).toBe(observed.filter((x) => x.endpoint === o.endpoint && x.outcome === o.outcome).length);
        }
      }),
      { numRuns: 50 },
    );
  });
});

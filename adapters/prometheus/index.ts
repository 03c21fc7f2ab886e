/**
 * `payrail/adapters/prometheus`: the engine's observations as Prometheus metrics (prom-client,
 * an optional peer dependency used only here). See docs/operations.md for every metric.
 */
export { PrometheusMetrics, createPrometheusMetrics, type PrometheusMetricsOptions, type DueWorkSource } from "./prometheus-metrics";
export { NO_OBSERVER, combineObservers } from "../../src/ports/public";

import fc from "fast-check";
import parsePrometheusTextFormat, { type PromFamily } from "parse-prometheus-text-format";
import { Registry } from "prom-client";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulatedChains } from "../../../adapters/chains/simulated";
import { ManualClock } from "../../../adapters/clock";
import { createPrometheusMetrics, type PrometheusMetrics } from "../../../adapters/prometheus";
import { domainMetrics } from "../../../adapters/prometheus/domain-metrics";
import type { DomainObservation } from "../../../src/ports/observer";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const BASE = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const SOLANA = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const json = (res: Response): Promise<any> => res.json();

/** Issue 24.6: the domain metrics an operator pages on, moving as payouts settle, deposits arrive and chains reorganise. */
describe("domain metrics", () => {
  let w: TestWorld;
  let sim: SimulatedChains;
  let metrics: PrometheusMetrics;
  let key = 0;

  beforeEach(async () => {
    const clock = new ManualClock();
    sim = new SimulatedChains({ clock, chains: { base: { liquidity: { USDC: "1000" } }, solana: { liquidity: { USDC: "1000" } } } });
    metrics = createPrometheusMetrics();
    w = await testWorld(storageKinds()[0]!, { clock, chainAdapters: [sim], observer: metrics.observer });
    metrics.attach(w.engine);
  });
  afterEach(() => w.close());
  afterAll(() => closeSharedStorage());

  const post = (path: string, body?: unknown) =>
    w.request("POST", path, { ...(body !== undefined ? { body } : {}), headers: { "Idempotency-Key": `k-${key++}` } });
  const advance = (seconds: number) => post("/v1/test_helpers/clock/advance", { seconds });
  const scrape = async () => new Map(parsePrometheusTextFormat((await metrics.scrape()).body).map((f) => [f.name, f]));
  const value = (m: Map<string, PromFamily>, name: string, labels: Record<string, string> = {}) => {
    const sample = m.get(name)?.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
    return sample === undefined ? undefined : Number(sample.value);
  };
  /** A labelled histogram's count and sum, from the registry's JSON (the text parser drops a histogram's labels). */
  const histogram = async (name: string, labels: Record<string, string>) => {
    const values = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name)?.values ?? [];
    const pick = (suffix: string) =>
      values.find((v) => (v as { metricName?: string }).metricName === `${name}_${suffix}` && Object.entries(labels).every(([k, l]) => v.labels[k] === l))
        ?.value;
    return { count: pick("count") ?? 0, sum: pick("sum") ?? 0 };
  };

  it("counts payouts and legs by outcome, times settlement, and reads the hot wallets", async () => {
    const recipient = (await json(await post("/v1/recipients", { name: "Alice", chain_addresses: { base: BASE, solana: SOLANA } }))).id;
    await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "base", amount: "900" });
    await post("/v1/test_helpers/balances/fund", { asset: "USDC", chain: "solana", amount: "900" });
    const before = await scrape();
    expect(value(before, "payrail_payouts_finished_total")).toBeUndefined(); // nothing finished yet
    // the fan-out of the funds' events waits for a worker: the webhook backlog shows it
    expect(value(before, "payrail_webhook_backlog_items", { state: "due" })).toBeGreaterThanOrEqual(1);

    sim.failNext("solana");
    const split = await json(await post("/v1/payouts", { amount: "1500", asset: "USDC", recipient }));
    expect(split.legs).toHaveLength(2);
    const whole = await json(await post("/v1/payouts", { amount: "10", asset: "USDC", recipient }));
    await advance(10);
    const got = (id: string) => w.request("GET", `/v1/payouts/${id}`).then(json);
    expect((await got(split.id)).status).toBe("partially_settled");
    expect((await got(whole.id)).status).toBe("settled");

    const after = await scrape();
    expect(value(after, "payrail_payouts_finished_total", { asset: "USDC", mode: "test", outcome: "partially_settled" })).toBe(1);
    expect(value(after, "payrail_payouts_finished_total", { asset: "USDC", mode: "test", outcome: "settled" })).toBe(1);
    expect(value(after, "payrail_payouts_finished_total", { outcome: "failed" })).toBeUndefined();
    const legs = after.get("payrail_payout_legs_finished_total")!.metrics;
    const confirmed = legs.filter((s) => s.labels?.outcome === "confirmed" && s.labels?.reason === "none").reduce((sum, s) => sum + Number(s.value), 0);
    expect(confirmed).toBe(whole.legs.length + split.legs.length - 1); // every leg but the one failed
    const failed = legs.filter((s) => s.labels?.outcome === "failed");
    expect(failed.map((s) => [s.labels?.chain, Number(s.value)])).toEqual([["solana", 1]]);
    expect(failed[0]!.labels?.reason).not.toBe("none");
    // both payouts took the engine's clock from creation to settlement
    for (const outcome of ["settled", "partially_settled"]) {
      const h = await histogram("payrail_payout_settle_duration_seconds", { asset: "USDC", mode: "test", outcome });
      expect(h.count).toBe(1);
      expect(h.sum).toBeGreaterThan(0);
    }
    const hot = value(after, "payrail_hot_wallet_balance", { chain: "base", asset: "USDC", mode: "test" })!;
    expect(hot).toBeGreaterThan(0);
    expect(hot).toBeLessThanOrEqual(1000);
    // every event's fan-out ran: nothing waits any more
    expect(value(after, "payrail_webhook_backlog_items", { state: "due" })).toBe(0);
    expect(value(after, "payrail_webhook_backlog_oldest_age_seconds")).toBe(0);
  });

  it("measures deposits detected and their delay, the chain's head, and reorganisations", async () => {
    const pi = await json(await post("/v1/payment_intents", { asset: "USDC", chains: ["base"], amount: "25" }));
    expect((await json(await post(`/v1/test_helpers/payment_intents/${pi.id}/pay`, { chain: "base", amount: "25" }))).status).toBe("processing");
    await advance(2);
    const seen = await scrape();
    expect(value(seen, "payrail_deposits_detected_total", { chain: "base", asset: "USDC", mode: "test" })).toBe(1);
    expect((await histogram("payrail_deposit_detection_delay_seconds", { chain: "base", mode: "test" })).count).toBe(1);
    expect(value(seen, "payrail_chain_head_block", { chain: "base", mode: "test" })).toBeGreaterThan(0);
    expect(value(seen, "payrail_chain_last_block_read", { chain: "base", mode: "test" })).toBe(value(seen, "payrail_chain_head_block", { chain: "base" }));
    expect(value(seen, "payrail_chain_head_lag_blocks", { chain: "base", mode: "test" })).toBe(0);
    expect(value(seen, "payrail_chain_reorgs_total")).toBeUndefined();

    const reorg = await post("/v1/test_helpers/chains/base/reorg", { depth: 3 });
    expect(reorg.status).toBe(200);
    expect((await histogram("payrail_chain_reorg_depth_blocks", { chain: "base", mode: "test" })).sum).toBe(3);
    expect(value(await scrape(), "payrail_chain_reorgs_total", { chain: "base", mode: "test" })).toBe(1);
    // the same deposit, seen again as reverted, is not a second detection
    await advance(2);
    expect(value(await scrape(), "payrail_deposits_detected_total", { chain: "base" })).toBe(1);
  });
});

const chain = fc.constantFrom("base", "solana", "ethereum");
const observation: fc.Arbitrary<DomainObservation> = fc.oneof(
  fc.record({
    type: fc.constant("payout_finished" as const),
    asset: fc.constantFrom("USDC", "EURC"),
    livemode: fc.boolean(),
    outcome: fc.constantFrom("settled" as const, "partially_settled" as const, "failed" as const, "canceled" as const),
    durationMs: fc.nat(10_000_000),
  }),
  fc.record({ type: fc.constant("chain_head" as const), chain, livemode: fc.boolean(), head: fc.nat(1e9), lastBlockRead: fc.nat(1e9) }),
  fc.record({ type: fc.constant("chain_reorg" as const), chain, livemode: fc.boolean(), depth: fc.integer({ min: 1, max: 200 }) }),
);

describe("domain metrics, for any observations", () => {
  it("count each outcome once, keep the last head per chain and mode, never a negative lag, and label only bounded fields", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (seen) => {
        const registry = new Registry();
        const feed = domainMetrics(registry, "t_");
        for (const o of seen) feed(o);
        const families = new Map(parsePrometheusTextFormat(await registry.metrics()).map((f) => [f.name, f]));
        const mode = (live: boolean) => (live ? "live" : "test");
        const finished = seen.filter((o) => o.type === "payout_finished");
        const total = (families.get("t_payouts_finished_total")?.metrics ?? []).reduce((sum, s) => sum + Number(s.value), 0);
        expect(total).toBe(finished.length);
        const heads = new Map<string, { head: number; lastBlockRead: number }>();
        for (const o of seen) if (o.type === "chain_head") heads.set(`${o.chain}/${mode(o.livemode)}`, o);
        for (const s of families.get("t_chain_head_lag_blocks")?.metrics ?? []) {
          const last = heads.get(`${s.labels?.chain}/${s.labels?.mode}`)!;
          expect(Number(s.value)).toBe(Math.max(0, last.head - last.lastBlockRead));
        }
        expect(families.get("t_chain_head_lag_blocks")?.metrics.length ?? 0).toBe(heads.size);
        const reorgs = (families.get("t_chain_reorgs_total")?.metrics ?? []).reduce((sum, s) => sum + Number(s.value), 0);
        expect(reorgs).toBe(seen.filter((o) => o.type === "chain_reorg").length);
        const allowed = new Set(["asset", "chain", "mode", "outcome", "reason", "action", "le"]);
        for (const family of families.values())
          for (const s of family.metrics) for (const label of Object.keys(s.labels ?? {})) expect(allowed).toContain(label);
      }),
      { numRuns: 50 },
    );
  });
});

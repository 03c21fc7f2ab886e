import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { DomainObservation, DueWorkKindStats } from "../../src/ports/public";

const SECONDS = 1000;
/** Payouts settle in blocks: seconds on fast chains, up to an hour or two on slow ones or with approvals. */
const SETTLE_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600];
const DETECTION_BUCKETS = [1, 2, 5, 10, 30, 60, 120, 300, 900, 3600];
const REORG_DEPTH_BUCKETS = [1, 2, 3, 5, 10, 20, 50, 100];

/** The due-work kinds that are webhook deliveries still to make (fan-out of events, then attempts). */
export const WEBHOOK_WORK_KINDS: readonly string[] = ["webhook.fanout", "webhook.deliver"];

/**
 * The domain metrics (`EngineObserver.domainObserved`) on `registry`: payout and leg outcomes,
 * time to settle, deposits and their detection delay, hot-wallet balances, chain head and last
 * block read, reorganisations, rescued transactions. Labels are bounded (chain, asset, mode,
 * outcome, reason, action); returns the observer member that feeds them.
 */
export function domainMetrics(registry: Registry, p: string): (o: DomainObservation) => void {
  const registers = [registry];
  const payouts = new Counter({
    name: `${p}payouts_finished_total`,
    help: "Payouts that reached a final status, by asset, mode and outcome (settled, partially_settled, failed, canceled)",
    labelNames: ["asset", "mode", "outcome"] as const,
    registers,
  });
  const settle = new Histogram({
    name: `${p}payout_settle_duration_seconds`,
    help: "Time from a payout's creation to its settlement (settled or partially_settled), engine clock",
    labelNames: ["asset", "mode", "outcome"] as const,
    buckets: SETTLE_BUCKETS,
    registers,
  });
  const legs = new Counter({
    name: `${p}payout_legs_finished_total`,
    help: "Payout legs that reached a final status, by chain, asset, mode, outcome (confirmed, failed) and reason (none, broadcast_rejected, transfer_failed, payout_canceled)",
    labelNames: ["chain", "asset", "mode", "outcome", "reason"] as const,
    registers,
  });
  const deposits = new Counter({
    name: `${p}deposits_detected_total`,
    help: "Deposits to payment intents the engine learnt of, by chain, asset and mode",
    labelNames: ["chain", "asset", "mode"] as const,
    registers,
  });
  const detection = new Histogram({
    name: `${p}deposit_detection_delay_seconds`,
    help: "Time from a deposit's block to the engine reading it (block time to engine clock)",
    labelNames: ["chain", "mode"] as const,
    buckets: DETECTION_BUCKETS,
    registers,
  });
  const hotWallet = new Gauge({
    name: `${p}hot_wallet_balance`,
    help: "Spendable hot-wallet balance in whole units of the asset, as last read (when routing a payout), by chain, asset and mode",
    labelNames: ["chain", "asset", "mode"] as const,
    registers,
  });
  const reconciliation = new Gauge({
    name: `${p}reconciliation_difference`,
    help: "What a chain's addresses hold of an asset less what the books say they should (on_chain - in_books), in whole units, as last reconciled, by chain, asset and mode: 0 when balanced",
    labelNames: ["chain", "asset", "mode"] as const,
    registers,
  });
  const reconciliationDrift = new Gauge({
    name: `${p}reconciliation_drift`,
    help: "1 when the last reconciliation of a chain and asset found drift (a difference, or a deposit address holding money never read), else 0",
    labelNames: ["chain", "asset", "mode"] as const,
    registers,
  });
  const reconciledAt = new Gauge({
    name: `${p}reconciliation_read_timestamp_seconds`,
    help: "When a chain and asset were last reconciled (Unix seconds): a stale one means the runs are deferred or failing",
    labelNames: ["chain", "asset", "mode"] as const,
    registers,
  });
  const head = new Gauge({
    name: `${p}chain_head_block`,
    help: "The chain's head as the chain adapter last read it from its node",
    labelNames: ["chain", "mode"] as const,
    registers,
  });
  const lastRead = new Gauge({
    name: `${p}chain_last_block_read`,
    help: "The highest block the chain adapter has read (scanned for deposits)",
    labelNames: ["chain", "mode"] as const,
    registers,
  });
  const lag = new Gauge({
    name: `${p}chain_head_lag_blocks`,
    help: "How many blocks the chain adapter's reading is behind the chain's head",
    labelNames: ["chain", "mode"] as const,
    registers,
  });
  const reorgs = new Counter({
    name: `${p}chain_reorgs_total`,
    help: "Reorganisations the chain adapters found, by chain and mode",
    labelNames: ["chain", "mode"] as const,
    registers,
  });
  const reorgDepth = new Histogram({
    name: `${p}chain_reorg_depth_blocks`,
    help: "Depth of the reorganisations found (blocks replaced), where the adapter can tell",
    labelNames: ["chain", "mode"] as const,
    buckets: REORG_DEPTH_BUCKETS,
    registers,
  });
  const rescued = new Counter({
    name: `${p}chain_transactions_rescued_total`,
    help: "Sent transactions that needed help, by chain, mode and action: resent (the node lost it), replaced (stuck, re-sent with a higher fee), dropped (its nonce went to another)",
    labelNames: ["chain", "mode", "action"] as const,
    registers,
  });

  return (o) => {
    const mode = o.livemode ? "live" : "test";
    switch (o.type) {
      case "payout_finished":
        payouts.inc({ asset: o.asset, mode, outcome: o.outcome });
        if (o.outcome === "settled" || o.outcome === "partially_settled") settle.observe({ asset: o.asset, mode, outcome: o.outcome }, o.durationMs / SECONDS);
        break;
      case "leg_finished":
        legs.inc({ chain: o.chain, asset: o.asset, mode, outcome: o.outcome, reason: o.reason ?? "none" });
        break;
      case "deposit_detected":
        deposits.inc({ chain: o.chain, asset: o.asset, mode });
        detection.observe({ chain: o.chain, mode }, o.delayMs / SECONDS);
        break;
      case "hot_wallet_balance":
        hotWallet.set({ chain: o.chain, asset: o.asset, mode }, o.balance);
        break;
      case "reconciliation":
        reconciliation.set({ chain: o.chain, asset: o.asset, mode }, o.difference);
        reconciliationDrift.set({ chain: o.chain, asset: o.asset, mode }, o.drift ? 1 : 0);
        reconciledAt.set({ chain: o.chain, asset: o.asset, mode }, Date.now() / 1000);
        break;
      case "chain_head":
        head.set({ chain: o.chain, mode }, o.head);
        lastRead.set({ chain: o.chain, mode }, o.lastBlockRead);
        lag.set({ chain: o.chain, mode }, Math.max(0, o.head - o.lastBlockRead));
        break;
      case "chain_reorg":
        reorgs.inc({ chain: o.chain, mode });
        if (o.depth !== null) reorgDepth.observe({ chain: o.chain, mode }, o.depth);
        break;
      case "transaction_rescued":
        rescued.inc({ chain: o.chain, mode, action: o.action });
        break;
    }
  };
}

/**
 * The webhook backlog, summed over every endpoint and account (a label per endpoint would be
 * unbounded): delivery work by state, and how long the oldest due item has waited. Read from
 * the due-work counts of the scrape (`stats`); per-endpoint detail is in the API's deliveries.
 */
export function webhookBacklogMetrics(registry: Registry, p: string, stats: () => Promise<DueWorkKindStats[] | null>, now: () => number): void {
  const registers = [registry];
  const webhook = async () => ((await stats()) ?? []).filter((k) => WEBHOOK_WORK_KINDS.includes(k.kind));
  new Gauge({
    name: `${p}webhook_backlog_items`,
    help: "Webhook work not yet done, all endpoints together, by state: due (waiting for a worker), leased (sending), scheduled (a retry to come)",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      this.reset();
      const kinds = await webhook();
      for (const state of ["due", "leased", "scheduled"] as const)
        this.set(
          { state },
          kinds.reduce((sum, k) => sum + k[state], 0),
        );
    },
  });
  new Gauge({
    name: `${p}webhook_backlog_oldest_age_seconds`,
    help: "How long the oldest due webhook work has waited for a worker, all endpoints together (0 when none waits)",
    registers,
    async collect() {
      const oldest = (await webhook()).reduce((min, k) => (k.oldestDueAt === null ? min : Math.min(min, k.oldestDueAt)), Number.POSITIVE_INFINITY);
      this.set(Number.isFinite(oldest) ? Math.max(0, now() - oldest) / SECONDS : 0);
    },
  });
}

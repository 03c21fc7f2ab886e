import { s } from "../../validation/schema";
import { defineEngineWork, newDueWork, type JobHandler } from "../../workers/due-work";
import type { ModuleDeps } from "../../engine/context";
import type { UnitOfWork } from "../../engine/unit-of-work";
import type { DepositIngestion } from "./deposit-ingestion";

/**
 * One watcher per chain and mode while it is in demand (engine work: a chain serves every
 * account of the mode). Items scheduled before modes existed have no `livemode`: test mode.
 */
export const CHAIN_WATCH = defineEngineWork("chains.watch", s.object({ chain: s.string({ min: 1 }), livemode: s.boolean().optional() }));
/** Sweeps of one chain and mode, while the adapter has any under way. */
export const CHAIN_SWEEP = defineEngineWork("chains.sweep", s.object({ chain: s.string({ min: 1 }), livemode: s.boolean() }));
/** Poll interval while nothing is in flight on the chain. */
const IDLE_POLL_MS = 5_000;
/** Longest wait between tries while a chain cannot be read. */
const MAX_RETRY_MS = 60_000;
/** How long a chain stays watched after its last intent could still be paid (late reorgs). */
const TAIL_MS = 3_600_000;

/** A chain is watched once per mode (its test-mode simulation and its live adapter apart). */
interface Watched {
  chain: string;
  livemode: boolean;
}
const scope = ({ chain, livemode }: Watched) => (livemode ? `live:${chain}` : chain);
const cursorKey = (w: Watched) => `chain.cursor:${scope(w)}`;
const untilKey = (w: Watched) => `chain.watch_until:${scope(w)}`;

/**
 * One watcher per chain reads deposits through the chain port's cursor (`inboundTransfers`) and
 * hands them to the ingestion. It runs while the chain is in demand (an intent could still be
 * paid on it, plus an hour for late reorganisations) or while a deposit is in flight, every
 * block while something is in flight and every 5 s otherwise, and stops when neither holds; the
 * next demand starts it again. A crash between ingesting and saving the cursor reads the same
 * deposits again, which changes nothing. Test and live mode have a watcher each on a chain
 * (their adapters differ). When a read reports a final deposit and the adapter sweeps
 * (`sweepDeposits`), a sweep item per chain and mode runs until the adapter has nothing under way.
 */
export class ChainWatchers {
  constructor(
    private readonly deps: Pick<ModuleDeps, "chains" | "clock" | "ids" | "storage">,
    private readonly ingestion: DepositIngestion,
  ) {}

  /**
   * Keeps `chain` watched, in the mode of the unit of work's account, until at least `until`
   * (plus the tail), starting its watcher if idle.
   */
  async watch(uow: UnitOfWork, chain: string, until: number): Promise<void> {
    const w = { chain, livemode: uow.ctx.livemode };
    await uow.tx.meta.raise(untilKey(w), until + TAIL_MS);
    uow.schedule(CHAIN_WATCH, w, { dedupeKey: `${CHAIN_WATCH.kind}:${scope(w)}` });
  }

  /** Reads what the chain reports now and ingests it; returns whether anything is in flight. */
  async poll(chain: string, livemode: boolean): Promise<{ inFlight: boolean }> {
    const w = { chain, livemode };
    const adapter = this.deps.chains.for(chain, livemode);
    if (!adapter) return { inFlight: false };
    const cursor = await this.deps.storage.read((tx) => tx.meta.get(cursorKey(w)));
    const { transfers, cursor: next } = await adapter.inboundTransfers(chain, cursor);
    await this.ingestion.ingest(transfers);
    const sweep = adapter.sweepDeposits !== undefined && transfers.some((t) => t.finality === "final");
    await this.deps.storage.engineWork(
      async (tx) => {
        await tx.meta.set(cursorKey(w), next);
        if (sweep) {
          await tx.work.enqueue([newDueWork(this.deps.ids, this.deps.clock.now(), CHAIN_SWEEP, w, null, { dedupeKey: `${CHAIN_SWEEP.kind}:${scope(w)}` })]);
        }
      },
      { wakeWhen: () => sweep },
    );
    return { inFlight: transfers.some((t) => t.finality === "pending" || t.finality === "included") };
  }

  /** `chains.sweep`: moves final deposits to the hot wallet, a step per run, until none is under way. */
  sweepHandler(): JobHandler<Watched, "engine"> {
    return async (job) => {
      const w = job.payload;
      const adapter = this.deps.chains.required(w.chain, w.livemode);
      if (!adapter.sweepDeposits) return;
      try {
        const { pending } = await adapter.sweepDeposits(w.chain);
        if (!pending) return;
      } catch (e) {
        const delay = Math.min(MAX_RETRY_MS, IDLE_POLL_MS * 2 ** Math.max(0, job.attempts - 1));
        return { kind: "retry", at: this.deps.clock.now() + delay, error: e instanceof Error ? e.message : String(e) };
      }
      const { blockTimeMs } = await adapter.describe(w.chain);
      return { kind: "reschedule", at: this.deps.clock.now() + Math.max(blockTimeMs, 1_000) };
    };
  }

  handler(): JobHandler<{ chain: string; livemode?: boolean | undefined }, "engine"> {
    return async (job) => {
      const w = { chain: job.payload.chain, livemode: job.payload.livemode ?? false };
      let inFlight: boolean;
      try {
        ({ inFlight } = await this.poll(w.chain, w.livemode));
      } catch (e) {
        // a chain that cannot be read is asked again soon: deposits wait on it
        const delay = Math.min(MAX_RETRY_MS, IDLE_POLL_MS * 2 ** Math.max(0, job.attempts - 1));
        return { kind: "retry", at: this.deps.clock.now() + delay, error: e instanceof Error ? e.message : String(e) };
      }
      // Stopping is decided under the demand row's lock, and the watcher removes its own item in
      // that transaction: a `watch` that raises the demand either commits first (and is seen
      // here) or waits, then finds no watcher and starts one. No demand slips between the two.
      const stopped = await this.deps.storage.engineWork(async (tx) => {
        const until = Number((await tx.meta.get(untilKey(w), { lock: true })) ?? 0);
        if (inFlight || this.deps.clock.now() < until) return false;
        await tx.work.complete(job.id, job.leaseOwner);
        return true;
      });
      if (stopped) return;
      const adapter = this.deps.chains.for(w.chain, w.livemode);
      const blockTime = adapter ? (await adapter.describe(w.chain)).blockTimeMs : IDLE_POLL_MS;
      return { kind: "reschedule", at: this.deps.clock.now() + (inFlight ? blockTime : IDLE_POLL_MS) };
    };
  }
}

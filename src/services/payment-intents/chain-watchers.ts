import type { WorkHandler } from "../../workers/runner";
import type { EngineDeps } from "../context";
import type { UnitOfWork } from "../unit-of-work";
import type { DepositIngestion } from "./deposit-ingestion";

export const WATCH_KIND = "chains.watch";
/** Poll interval while nothing is in flight on the chain. */
const IDLE_POLL_MS = 5_000;
/** Longest wait between tries while a chain cannot be read. */
const MAX_RETRY_MS = 60_000;
/** How long a chain stays watched after its last intent could still be paid (late reorgs). */
const TAIL_MS = 3_600_000;

const cursorKey = (chain: string) => `chain.cursor:${chain}`;
const untilKey = (chain: string) => `chain.watch_until:${chain}`;

/**
 * One watcher per chain reads deposits through the chain port's cursor (`inboundTransfers`) and
 * hands them to the ingestion. It runs while the chain is in demand (an intent could still be
 * paid on it, plus an hour for late reorganisations) or while a deposit is in flight, every
 * block while something is in flight and every 5 s otherwise, and stops when neither holds; the
 * next demand starts it again. A crash between ingesting and saving the cursor reads the same
 * deposits again, which changes nothing.
 */
export class ChainWatchers {
  constructor(
    private readonly deps: EngineDeps,
    private readonly ingestion: DepositIngestion,
  ) {}

  /** Keeps `chain` watched until at least `until` (plus the tail), starting its watcher if idle. */
  async watch(uow: UnitOfWork, chain: string, until: number): Promise<void> {
    await uow.tx.meta.raise(untilKey(chain), until + TAIL_MS);
    uow.schedule(WATCH_KIND, { chain }, { accountId: null, dedupeKey: `${WATCH_KIND}:${chain}` });
  }

  /** Reads what the chain reports now and ingests it; returns whether anything is in flight. */
  async poll(chain: string): Promise<{ inFlight: boolean }> {
    const adapter = this.deps.chains.any(chain);
    if (!adapter) return { inFlight: false };
    const cursor = await this.deps.storage.transaction((tx) => tx.meta.get(cursorKey(chain)));
    const { transfers, cursor: next } = await adapter.inboundTransfers(chain, cursor);
    await this.ingestion.ingest(transfers);
    await this.deps.storage.transaction((tx) => tx.meta.set(cursorKey(chain), next));
    return { inFlight: transfers.some((t) => t.finality === "pending" || t.finality === "included") };
  }

  handler(): WorkHandler {
    return async (job) => {
      const { chain } = job.payload as { chain: string };
      let inFlight: boolean;
      try {
        ({ inFlight } = await this.poll(chain));
      } catch (e) {
        // a chain that cannot be read is asked again soon: deposits wait on it
        const delay = Math.min(MAX_RETRY_MS, IDLE_POLL_MS * 2 ** Math.max(0, job.attempts - 1));
        return { kind: "retry", at: this.deps.clock.now() + delay, error: e instanceof Error ? e.message : String(e) };
      }
      // Stopping is decided under the demand row's lock, and the watcher removes its own item in
      // that transaction: a `watch` that raises the demand either commits first (and is seen
      // here) or waits, then finds no watcher and starts one. No demand slips between the two.
      const stopped = await this.deps.storage.transaction(async (tx) => {
        const until = Number((await tx.meta.get(untilKey(chain), { lock: true })) ?? 0);
        if (inFlight || this.deps.clock.now() < until) return false;
        await tx.work.complete(job.id, job.leaseOwner!);
        return true;
      });
      if (stopped) return;
      const adapter = this.deps.chains.any(chain);
      const blockTime = adapter ? (await adapter.describe(chain)).blockTimeMs : IDLE_POLL_MS;
      return { kind: "reschedule", at: this.deps.clock.now() + (inFlight ? blockTime : IDLE_POLL_MS) };
    };
  }
}

import { ok } from "neverthrow";
import type { LegEvent } from "../../machines/leg-machine";
import type { ChainInfo } from "../../ports/chain";
import type { WorkHandler, WorkOutcome } from "../../workers/runner";
import { runCommand } from "../command";
import { systemContext, type EngineDeps } from "../context";
import { RECIPIENTS } from "../recipients";
import { BatchCounts } from "./batch-counts";
import { PAYOUTS, type PayoutDoc } from "./payout-doc";
import { PayoutTransitions, type StatusChange } from "./payout-transitions";

interface PayoutJob {
  payouts: string[];
  livemode: boolean;
}

/** Retry delay when a chain call failed for a transient reason. */
const TRANSIENT_RETRY_MS = 5_000;

/**
 * The due work that moves payouts: `payouts.broadcast` sends pending legs, `payouts.track`
 * follows broadcast legs to finality or failure. Both take a list of payouts (one for a single
 * payout, a chunk for a batch), call chains outside any transaction (broadcasts are idempotent by
 * leg id), then apply every result in one transaction. Running a job twice changes nothing the
 * second time: the machines ignore events their legs have moved past.
 */
export class PayoutWorkers {
  private readonly info = new Map<string, ChainInfo>();

  constructor(
    private readonly deps: EngineDeps,
    private readonly transitions: PayoutTransitions,
    private readonly batches: BatchCounts,
  ) {}

  broadcastHandler(): WorkHandler {
    return async (job) => {
      const { payouts, livemode } = job.payload as PayoutJob;
      const { transient } = await this.broadcast(job.accountId!, livemode, payouts);
      return transient ? retry(this.deps, transient) : undefined;
    };
  }

  /**
   * Sends the pending legs of these payouts and applies the results; also called by payout
   * create, so a new payout answers with its legs already on the network. A chain that fails
   * transiently leaves its legs pending and is reported, for a retry.
   */
  async broadcast(accountId: string, livemode: boolean, payouts: string[]): Promise<{ transient: string | null }> {
    const docs = await this.read(accountId, payouts);
    const events = new Map<string, Map<string, LegEvent>>();
    const blocked = await this.blockedRecipients(accountId, docs);
    let transient: string | null = null;
    for (const doc of docs) {
      if (doc.status !== "executing") continue;
      const legEvents = new Map<string, LegEvent>();
      for (const leg of doc.legs) {
        if (leg.status !== "pending") continue;
        if (blocked.has(doc.recipient)) {
          legEvents.set(leg.id, { type: "cancel", reason: "recipient_blocked" });
          continue;
        }
        const adapter = this.deps.chains.for(leg.chain, livemode);
        if (!adapter) {
          legEvents.set(leg.id, { type: "rejected", reason: `no chain adapter serves ${leg.chain}` });
          continue;
        }
        try {
          const sent = await adapter.broadcast({
            transferId: leg.id,
            chain: leg.chain,
            asset: doc.asset,
            amount: BigInt(leg.amount),
            to: leg.address,
          });
          legEvents.set(leg.id, "txHash" in sent ? { type: "broadcast", txHash: sent.txHash } : { type: "rejected", reason: sent.rejected });
        } catch (e) {
          transient = e instanceof Error ? e.message : String(e);
        }
      }
      if (legEvents.size) events.set(doc.id, legEvents);
    }
    await this.apply(accountId, livemode, payouts, events, { startTracking: true });
    return { transient };
  }

  trackHandler(): WorkHandler {
    return async (job) => {
      const { payouts, livemode } = job.payload as PayoutJob;
      const docs = await this.read(job.accountId!, payouts);
      const events = new Map<string, Map<string, LegEvent>>();
      let transient: string | null = null;
      for (const doc of docs) {
        if (doc.status !== "executing") continue;
        const legEvents = new Map<string, LegEvent>();
        for (const leg of doc.legs) {
          if (leg.status !== "broadcast" || !leg.machine.txHash) continue;
          try {
            const status = await this.deps.chains.any(leg.chain)!.transferStatus(leg.chain, leg.machine.txHash);
            legEvents.set(leg.id, { type: "status", ...status });
          } catch (e) {
            transient = e instanceof Error ? e.message : String(e);
          }
        }
        if (legEvents.size) events.set(doc.id, legEvents);
      }
      const { inFlight, delay } = await this.apply(job.accountId!, livemode, payouts, events, { startTracking: false });
      if (transient) return retry(this.deps, transient);
      // the same item follows the same payouts until none is in flight
      if (inFlight > 0) return { kind: "reschedule", at: this.deps.clock.now() + delay };
    };
  }

  /**
   * Applies leg events to each payout and keeps batch counts, in one transaction. A broadcast
   * job then starts one tracking item for the payouts it left in flight (deduplicated, so a
   * retried broadcast does not start a second).
   */
  private async apply(
    accountId: string,
    livemode: boolean,
    payouts: string[],
    events: Map<string, Map<string, LegEvent>>,
    options: { startTracking: boolean },
  ): Promise<{ inFlight: number; delay: number }> {
    const next = await runCommand(this.deps, systemContext(accountId, livemode), async (uow) => {
      const changes: StatusChange[] = [];
      const inFlight: PayoutDoc[] = [];
      for (const id of [...payouts].sort()) {
        const stored = await PAYOUTS.get(uow.tx, accountId, id, { lock: true });
        if (!stored) continue;
        let doc = stored.doc;
        const legEvents = events.get(id);
        if (legEvents) {
          const result = await this.transitions.onLegs(uow, doc, legEvents);
          if (result.handled) {
            await PAYOUTS.update(uow.tx, stored, result.doc, uow.now);
            doc = result.doc;
          }
          if (result.change) changes.push(result.change);
        }
        if (doc.status === "executing" && doc.legs.some((l) => l.status === "broadcast")) inFlight.push(doc);
      }
      await this.batches.apply(uow, changes);
      const delay = await this.pollDelay(inFlight);
      if (options.startTracking && inFlight.length) {
        this.transitions.scheduleTracking(uow, inFlight.map((d) => d.id), uow.now + delay);
      }
      return ok({ inFlight: inFlight.length, delay });
    });
    if (next.isErr()) throw next.error;
    return next.value;
  }

  private async read(accountId: string, ids: string[]): Promise<PayoutDoc[]> {
    const found = await this.deps.storage.transaction((tx) => PAYOUTS.getMany(tx, accountId, ids));
    return ids.map((id) => found.get(id)).filter((doc): doc is PayoutDoc => doc !== undefined);
  }

  /** Recipients flagged since their payouts were created: their pending legs are not sent. */
  private async blockedRecipients(accountId: string, docs: PayoutDoc[]): Promise<Set<string>> {
    const ids = [...new Set(docs.filter((d) => d.status === "executing").map((d) => d.recipient))];
    return this.deps.storage.transaction(async (tx) => {
      const blocked = new Set<string>();
      for (const id of ids) {
        const recipient = await RECIPIENTS.get(tx, accountId, id);
        if (recipient?.doc.screeningStatus === "flagged") blocked.add(id);
      }
      return blocked;
    });
  }

  /** The shortest block time among the chains still carrying legs: the next status worth asking. */
  private async pollDelay(docs: PayoutDoc[]): Promise<number> {
    let delay = Number.POSITIVE_INFINITY;
    for (const doc of docs) {
      for (const leg of doc.legs) {
        if (leg.status !== "broadcast") continue;
        if (!this.info.has(leg.chain)) this.info.set(leg.chain, await this.deps.chains.any(leg.chain)!.describe(leg.chain));
        delay = Math.min(delay, this.info.get(leg.chain)!.blockTimeMs);
      }
    }
    return Number.isFinite(delay) ? delay : 1_000;
  }
}

function retry(deps: EngineDeps, error: string): WorkOutcome {
  return { kind: "retry", at: deps.clock.now() + TRANSIENT_RETRY_MS, error };
}

import { ok } from "neverthrow";
import type { LegEvent } from "../../machines/leg-machine";
import type { ChainInfo, OutboundTransfer } from "../../ports/chain";
import type { DueWorkRecord } from "../../ports/storage";
import type { WorkHandler, WorkOutcome } from "../../workers/runner";
import { runCommand } from "../command";
import { systemContext, type EngineDeps } from "../context";
import { RECIPIENTS } from "../recipients";
import type { UnitOfWork } from "../unit-of-work";
import { BatchCounts } from "./batch-counts";
import { PAYOUTS, type LegDoc, type PayoutDoc } from "./payout-doc";
import { PayoutTransitions, type StatusChange } from "./payout-transitions";

interface PayoutJob {
  payouts: string[];
  livemode: boolean;
}

/**
 * How long a leg claimed for sending belongs to the run that claimed it. After that (the run
 * died between its claim and its result) another run may send it again: the chain answers the
 * same transfer id with the same outcome, so nothing goes out twice.
 */
export const SEND_CLAIM_MS = 60_000;
/** First retry delay after a chain call failed transiently; doubles per attempt, at most 5 min. */
const TRANSIENT_RETRY_MS = 5_000;
const TRANSIENT_RETRY_MAX_MS = 300_000;

/** What one send of a claimed leg came to. */
type SendResult = { event: LegEvent } | { transient: string };

/**
 * The due work that moves payouts: `payouts.broadcast` sends pending legs, `payouts.track`
 * follows broadcast legs to finality or failure. Both take a list of payouts (one for a single
 * payout, a chunk for a batch), call chains outside any transaction, and apply every result in
 * one transaction.
 *
 * Sending is claimed first: one transaction marks the pending legs it will send (and cancels the
 * legs of recipients flagged meanwhile, which nobody has started sending), then the chain calls,
 * then one transaction applies the outcomes to the legs still claimed. Two runs over the same
 * payout (payout create sending at once beside its scheduled broadcast, a lease that ran out)
 * therefore never both decide a leg; a run that finds a fresh claim of another comes back when
 * the claim would have run out. Chains answer a repeated transfer id with its first outcome.
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
      const { transient, waiting } = await this.broadcast(job.accountId!, livemode, payouts);
      if (transient) return retry(this.deps, job, transient);
      if (waiting) return { kind: "reschedule", at: this.deps.clock.now() + SEND_CLAIM_MS };
    };
  }

  /**
   * Sends the pending legs of these payouts and applies the outcomes; also called by payout
   * create, so a new payout answers with its legs already on the network. Reports a transient
   * chain failure (those legs stay pending, unclaimed) and legs another run is still sending.
   */
  async broadcast(accountId: string, livemode: boolean, payouts: string[]): Promise<{ transient: string | null; waiting: boolean }> {
    const { claimed, waiting } = await this.claim(accountId, livemode, payouts);
    const results = new Map<string, Map<string, SendResult>>();
    let transient: string | null = null;
    for (const [payoutId, transfers] of claimed) {
      const byLeg = new Map<string, SendResult>();
      for (const transfer of transfers) {
        try {
          const sent = await this.deps.chains.for(transfer.chain, livemode)!.broadcast(transfer);
          byLeg.set(
            transfer.transferId,
            "txHash" in sent
              ? { event: { type: "broadcast", txHash: sent.txHash } }
              : { event: { type: "rejected", reason: sent.rejected } },
          );
        } catch (e) {
          transient = e instanceof Error ? e.message : String(e);
          byLeg.set(transfer.transferId, { transient });
        }
      }
      results.set(payoutId, byLeg);
    }
    if (results.size) await this.settleSends(accountId, livemode, results);
    return { transient, waiting };
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
      const { inFlight, delay } = await this.apply(job.accountId!, livemode, payouts, (_, doc) => ({ doc, events: events.get(doc.id) }), {
        finish: job,
      });
      if (transient) return retry(this.deps, job, transient);
      // the same item follows the same payouts until none is in flight; then it is gone already
      if (inFlight > 0) return { kind: "reschedule", at: this.deps.clock.now() + delay };
      return { kind: "settled" };
    };
  }

  /** Claims the legs to send (and cancels legs of flagged recipients) in one transaction. */
  private async claim(
    accountId: string,
    livemode: boolean,
    payouts: string[],
  ): Promise<{ claimed: Map<string, OutboundTransfer[]>; waiting: boolean }> {
    const claimed = new Map<string, OutboundTransfer[]>();
    let waiting = false;
    await this.apply(accountId, livemode, payouts, async (uow, doc) => {
      if (doc.status !== "executing") return { doc };
      const flagged = (await RECIPIENTS.get(uow.tx, accountId, doc.recipient))?.doc.screeningStatus === "flagged";
      const events = new Map<string, LegEvent>();
      const legs: LegDoc[] = [];
      const transfers: OutboundTransfer[] = [];
      for (const leg of doc.legs) {
        const since = leg.sendingSince ?? null;
        if (leg.status !== "pending") {
          legs.push(leg);
        } else if (since !== null && uow.now - since < SEND_CLAIM_MS) {
          waiting = true; // another run is sending it
          legs.push(leg);
        } else if (since === null && flagged) {
          events.set(leg.id, { type: "cancel", reason: "recipient_blocked" });
          legs.push(leg);
        } else if (!this.deps.chains.for(leg.chain, livemode)) {
          events.set(leg.id, { type: "rejected", reason: `no chain adapter serves ${leg.chain}` });
          legs.push(leg);
        } else {
          legs.push({ ...leg, sendingSince: uow.now });
          transfers.push({ transferId: leg.id, chain: leg.chain, asset: doc.asset, amount: BigInt(leg.amount), to: leg.address });
        }
      }
      if (transfers.length) claimed.set(doc.id, transfers);
      return { doc: { ...doc, legs }, events, changed: transfers.length > 0 };
    });
    return { claimed, waiting };
  }

  /** Applies the outcomes of sends to the legs still claimed; a transient failure unclaims. */
  private async settleSends(accountId: string, livemode: boolean, results: Map<string, Map<string, SendResult>>): Promise<void> {
    await this.apply(
      accountId,
      livemode,
      [...results.keys()],
      (_, doc) => {
        const outcomes = results.get(doc.id)!;
        const events = new Map<string, LegEvent>();
        const legs = doc.legs.map((leg) => {
          const outcome = outcomes.get(leg.id);
          if (!outcome || leg.status !== "pending" || (leg.sendingSince ?? null) === null) return leg;
          if ("event" in outcome) events.set(leg.id, outcome.event);
          return { ...leg, sendingSince: null };
        });
        return { doc: { ...doc, legs }, events, changed: true };
      },
      { startTracking: true },
    );
  }

  /**
   * One transaction over these payouts (locked in id order): `plan` gives each payout's document
   * to save and the leg events to apply; batch counts follow. Then payouts left in flight get one
   * tracking item (`startTracking`, deduplicated), or the tracking item that ran this finishes
   * itself in the same transaction when nothing is in flight (`finish`), so a broadcast that puts
   * a leg in flight meanwhile either is seen here or finds no tracking item and starts one.
   */
  private async apply(
    accountId: string,
    livemode: boolean,
    payouts: string[],
    plan: (
      uow: UnitOfWork,
      doc: PayoutDoc,
    ) =>
      | { doc: PayoutDoc; events?: Map<string, LegEvent> | undefined; changed?: boolean }
      | Promise<{ doc: PayoutDoc; events?: Map<string, LegEvent> | undefined; changed?: boolean }>,
    options: { startTracking?: boolean; finish?: DueWorkRecord } = {},
  ): Promise<{ inFlight: number; delay: number }> {
    const next = await runCommand(this.deps, systemContext(accountId, livemode), async (uow) => {
      const changes: StatusChange[] = [];
      const inFlight: PayoutDoc[] = [];
      for (const id of [...new Set(payouts)].sort()) {
        const stored = await PAYOUTS.get(uow.tx, accountId, id, { lock: true });
        if (!stored) continue;
        const planned = await plan(uow, stored.doc);
        let doc = planned.doc;
        let changed = planned.changed ?? false;
        if (planned.events?.size) {
          const result = await this.transitions.onLegs(uow, doc, planned.events);
          if (result.handled) {
            doc = result.doc;
            changed = true;
          }
          if (result.change) changes.push(result.change);
        }
        if (changed) await PAYOUTS.update(uow.tx, stored, doc, uow.now);
        if (doc.status === "executing" && doc.legs.some((l) => l.status === "broadcast")) inFlight.push(doc);
      }
      await this.batches.apply(uow, changes);
      const delay = await this.pollDelay(inFlight);
      if (options.startTracking && inFlight.length) {
        this.transitions.scheduleTracking(uow, inFlight.map((d) => d.id), uow.now + delay);
      }
      if (options.finish && inFlight.length === 0) await uow.tx.work.complete(options.finish.id, options.finish.leaseOwner!);
      return ok({ inFlight: inFlight.length, delay });
    });
    if (next.isErr()) throw next.error;
    return next.value;
  }

  private async read(accountId: string, ids: string[]): Promise<PayoutDoc[]> {
    const found = await this.deps.storage.transaction((tx) => PAYOUTS.getMany(tx, accountId, ids));
    return ids.map((id) => found.get(id)).filter((doc): doc is PayoutDoc => doc !== undefined);
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

/** Capped exponential retry after transient chain failures; the work never gives up. */
function retry(deps: EngineDeps, job: DueWorkRecord, error: string): WorkOutcome {
  const delay = Math.min(TRANSIENT_RETRY_MAX_MS, TRANSIENT_RETRY_MS * 2 ** Math.max(0, job.attempts - 1));
  return { kind: "retry", at: deps.clock.now() + delay, error };
}

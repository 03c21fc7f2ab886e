import { ok, type Result } from "neverthrow";
import type { Infer } from "../../validation/schema";
import { mayMoveFunds, type LegEvent } from "./leg-machine";
import type { ChainInfo, OutboundTransfer } from "../../ports/chain";
import type { Job, JobHandler } from "../../workers/due-work";
import type { WorkOutcome } from "../../workers/runner";
import { causeOf, type ApiError } from "../../errors";
import { carriedContext, jobContext, type ModuleDeps, type RequestContext } from "../../engine/context";
import { RECIPIENTS, type RecipientDoc } from "../recipients/recipients-service";
import type { Stored } from "../../engine/doc-store";
import { StaleResourceError } from "../../ports/storage/resources";
import type { UnitOfWork } from "../../engine/unit-of-work";
import type { BatchCounts } from "./batch-counts";
import { PAYOUTS, type LegDoc, type PayoutDoc } from "./payout-doc";
import { sendTransfers, transferOf, transferStatuses, type SendResult } from "./payout-chain-calls";
import type { PayoutTransitions, StatusChange } from "./payout-transitions";
import type { PAYOUT_BROADCAST } from "./payout-work";
import type { OwnerRecord } from "../../ports/storage";
import { claimedBy, claimEnds, holdersOf } from "./leg-claims";

type PayoutIds = Infer<typeof PAYOUT_BROADCAST.payload>;

/** First retry delay after a chain call failed transiently; doubles per attempt, at most 5 min. */
const TRANSIENT_RETRY_MS = 5_000;
const TRANSIENT_RETRY_MAX_MS = 300_000;

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
 * the claim runs out, or sooner when the process holding it heartbeats: when its life would end
 * unless renewed, and takes the claim over once that process is declared dead. A run records
 * outcomes only on the legs it still holds (fencing: a process declared dead, which took a new
 * name, finds its old claims are not its own), and sends nothing once its own heartbeat's life
 * ran out. Chains answer a repeated transfer id with its first outcome.
 */
export class PayoutWorkers {
  private readonly info = new Map<string, ChainInfo>();

  constructor(
    private readonly deps: Pick<ModuleDeps, "chains" | "claimsValidFrom" | "clock" | "config" | "storage" | "process">,
    private readonly transitions: PayoutTransitions,
    private readonly batches: BatchCounts,
  ) {}

  broadcastHandler(): JobHandler<PayoutIds> {
    return async (job) => {
      const { transient, waiting } = await this.broadcast(jobContext(job), job.payload.payouts);
      if (transient) return retry(this.deps, job, transient);
      if (waiting !== null) return { kind: "reschedule", at: waiting };
    };
  }

  /**
   * Sends the pending legs of these payouts and applies the outcomes. Reports a transient chain
   * failure (those legs stay pending, unclaimed) and, when another run is still sending legs,
   * the moment the first of those claims may be taken over (`waiting`; null when none).
   */
  async broadcast(origin: RequestContext, payouts: string[]): Promise<{ transient: string | null; waiting: number | null }> {
    const ctx = carriedContext(origin);
    const { claimed, waiting } = await this.claim(ctx, payouts);
    const { transient } = await this.sendClaimed(ctx, claimed);
    return { transient, waiting };
  }

  /**
   * Sends legs claimed already (by `claim`, or by payout create in its own transaction, so a new
   * payout answers with its legs on the network) and applies the outcomes in one transaction
   * (see `RecordOptions`).
   */
  async sendClaimed(origin: RequestContext, claimed: Map<string, OutboundTransfer[]>, options: RecordOptions = {}): Promise<{ transient: string | null }> {
    const ctx = carriedContext(origin);
    if (claimed.size && !this.deps.process.holds(this.deps.clock.now())) {
      // paused past its heartbeat's life: its claims may be another's now; send nothing
      return { transient: "this process's heartbeat ran out before it sent the legs it claimed" };
    }
    const sends = [...claimed].flatMap(([payoutId, transfers]) => transfers.map((transfer) => ({ payoutId, transfer })));
    const outcomes = await sendTransfers(
      this.deps.chains,
      sends.map((s) => s.transfer),
      ctx.livemode,
    );
    const results = new Map<string, Map<string, SendResult>>();
    let transient: string | null = null;
    sends.forEach(({ payoutId, transfer }, i) => {
      const outcome = outcomes[i]!;
      if ("transient" in outcome) transient = outcome.transient;
      if (!results.has(payoutId)) results.set(payoutId, new Map());
      results.get(payoutId)!.set(transfer.transferId, outcome);
    });
    if (results.size) await this.settleSends(ctx, results, options);
    return { transient };
  }

  /**
   * What payout create claims for its own send, inside its transaction: the pending legs a chain
   * adapter serves, marked as being sent (legs no adapter serves are left to the worker to refuse).
   */
  claimAtCreate(doc: PayoutDoc, now: number, livemode: boolean): { doc: PayoutDoc; transfers: OutboundTransfer[] } {
    const transfers: OutboundTransfer[] = [];
    const legs = doc.legs.map((leg) => {
      if (leg.status !== "pending" || !this.deps.chains.for(leg.chain, livemode)) return leg;
      transfers.push(transferOf(doc, leg));
      return { ...leg, sendingSince: now, sendingBy: this.deps.process.claimant() };
    });
    return { doc: { ...doc, legs }, transfers };
  }

  trackHandler(): JobHandler<PayoutIds> {
    return async (job) => {
      const {
        accountId,
        livemode,
        payload: { payouts },
      } = job;
      const docs = await this.read(accountId, payouts);
      const asked = docs
        .filter((doc) => doc.status === "executing")
        .flatMap((doc) => doc.legs.filter((leg) => leg.status === "broadcast" && leg.machine.txHash).map((leg) => ({ doc: doc.id, leg })));
      const statuses = await transferStatuses(
        this.deps.chains,
        asked.map(({ leg }) => ({ chain: leg.chain, txHash: leg.machine.txHash! })),
        livemode,
      );
      const events = new Map<string, Map<string, LegEvent>>();
      let transient: string | null = null;
      asked.forEach(({ doc, leg }, i) => {
        const status = statuses[i]!;
        if ("transient" in status) {
          transient = status.transient;
          return;
        }
        if (!events.has(doc)) events.set(doc, new Map());
        events.get(doc)!.set(leg.id, { type: "status", ...status });
      });
      const { inFlight, delay } = await this.apply(jobContext(job), payouts, (_, doc) => ({ doc, events: events.get(doc.id) }), {
        finish: job,
      });
      if (transient) return retry(this.deps, job, transient);
      // the same item follows the same payouts until none is in flight; then it is gone already
      if (inFlight > 0) return { kind: "reschedule", at: this.deps.clock.now() + delay };
      return { kind: "settled" };
    };
  }

  /** Claims the legs to send (and cancels legs of flagged recipients) in one transaction. */
  private async claim(ctx: RequestContext, payouts: string[]): Promise<{ claimed: Map<string, OutboundTransfer[]>; waiting: number | null }> {
    const { accountId, livemode } = ctx;
    const claimed = new Map<string, OutboundTransfer[]>();
    let waiting: number | null = null;
    let recipients = new Map<string, RecipientDoc>();
    let holders = new Map<string, OwnerRecord>();
    const prepare = async (uow: UnitOfWork, docs: PayoutDoc[]) => {
      recipients = await RECIPIENTS.getMany(uow.tx, accountId, [...new Set(docs.map((d) => d.recipient))]);
      holders = await holdersOf(uow, docs);
    };
    const { sendClaimMs } = this.deps.config;
    const { claimsValidFrom } = this.deps;
    await this.apply(
      ctx,
      payouts,
      (uow, doc) => {
        if (doc.status !== "executing") return { doc };
        const flagged = recipients.get(doc.recipient)?.screeningStatus === "flagged";
        const events = new Map<string, LegEvent>();
        const legs: LegDoc[] = [];
        const transfers: OutboundTransfer[] = [];
        for (const leg of doc.legs) {
          const since = leg.sendingSince ?? null;
          const ends = leg.status === "pending" ? claimEnds(leg, uow.now, { sendClaimMs, claimsValidFrom, holders }) : null;
          if (leg.status !== "pending") {
            legs.push(leg);
          } else if (ends !== null) {
            waiting = Math.min(waiting ?? ends, ends); // another run is sending it
            legs.push(leg);
          } else if (since === null && flagged) {
            events.set(leg.id, { type: "cancel", reason: "recipient_blocked" });
            legs.push(leg);
          } else if (!this.deps.chains.for(leg.chain, livemode)) {
            events.set(leg.id, { type: "rejected", reason: `no chain adapter serves ${leg.chain}` });
            legs.push(leg);
          } else {
            legs.push({ ...leg, sendingSince: uow.now, sendingBy: this.deps.process.claimant() });
            transfers.push(transferOf(doc, leg));
          }
        }
        if (transfers.length) claimed.set(doc.id, transfers);
        return { doc: { ...doc, legs }, events, changed: transfers.length > 0 };
      },
      { prepare },
    );
    return { claimed, waiting };
  }

  /**
   * Applies the outcomes of sends to the legs this process still holds (claimed, and by its
   * current name); a transient failure unclaims.
   */
  private async settleSends(ctx: RequestContext, results: Map<string, Map<string, SendResult>>, options: RecordOptions): Promise<void> {
    const me = this.deps.process.owner;
    await this.apply(
      ctx,
      [...results.keys()],
      (_, doc) => {
        const outcomes = results.get(doc.id)!;
        const events = new Map<string, LegEvent>();
        const legs = doc.legs.map((leg) => {
          const outcome = outcomes.get(leg.id);
          if (!outcome || !claimedBy(leg, me)) return leg;
          if ("event" in outcome) events.set(leg.id, outcome.event);
          return { ...leg, sendingSince: null, sendingBy: null };
        });
        return { doc: { ...doc, legs }, events, changed: true };
      },
      { startTracking: true, ...options },
    );
  }

  /**
   * One transaction over these payouts (locked at once, in id order): `prepare` reads what every
   * plan needs in one go, `plan` gives each payout's document to save and the leg events to
   * apply; the reservations of the legs with events are locked at once, the documents written at
   * once, and batch counts follow. So a chunk of a batch costs a handful of statements, not a
   * few per payout. Then payouts left in flight get one tracking item (`startTracking`,
   * deduplicated), or the tracking item that ran this finishes itself in the same transaction
   * when nothing is in flight (`finish`), so a broadcast that puts a leg in flight meanwhile
   * either is seen here or finds no tracking item and starts one.
   */
  private async apply(ctx: RequestContext, payouts: string[], plan: PlanStep, options: ApplyOptions = {}): Promise<{ inFlight: number; delay: number }> {
    const { assumed, ...locking } = options;
    if (!assumed) return this.applyOnce(ctx, payouts, plan, locking);
    try {
      return await this.applyOnce(ctx, payouts, plan, locking, assumed);
    } catch (e) {
      if (!causeOf(e, StaleResourceError)) throw e;
      return this.applyOnce(ctx, payouts, plan, locking);
    }
  }

  private async applyOnce(
    ctx: RequestContext,
    payouts: string[],
    plan: PlanStep,
    options: Omit<ApplyOptions, "assumed">,
    assumed?: Stored<PayoutDoc>[],
  ): Promise<{ inFlight: number; delay: number }> {
    const { accountId, livemode } = ctx;
    const command = async (uow: UnitOfWork): Promise<Result<{ inFlight: number; delay: number }, ApiError>> => {
      const changes: StatusChange[] = [];
      const inFlight: PayoutDoc[] = [];
      const stored = assumed
        ? assumed.filter((a) => payouts.includes(a.doc.id)).sort((a, b) => (a.doc.id < b.doc.id ? -1 : 1))
        : await PAYOUTS.lockMany(uow.tx, accountId, payouts).then((locked) => [...locked.keys()].sort().map((id) => locked.get(id)!));
      await options.prepare?.(
        uow,
        stored.map((s) => s.doc),
      );
      const planned = stored.map((s) => ({ stored: s, ...plan(uow, s.doc) }));
      const moving = (doc: PayoutDoc, events: Map<string, LegEvent> | undefined) =>
        events?.size ? doc.legs.filter((l) => events.has(l.id) && mayMoveFunds(events.get(l.id)!)).map((l) => l.reservation) : [];
      await uow.ledger.lockReservations(
        accountId,
        planned.flatMap(({ doc, events }) => moving(doc, events)),
      );
      const updates: { stored: Stored<PayoutDoc>; doc: PayoutDoc }[] = [];
      const after: PayoutDoc[] = [];
      for (const { stored, events, ...step } of planned) {
        let { doc } = step;
        let changed = step.changed ?? false;
        if (events?.size) {
          const result = await this.transitions.onLegs(uow, doc, events);
          if (result.handled) {
            doc = result.doc;
            changed = true;
          }
          if (result.change) changes.push(result.change);
        }
        if (changed) updates.push({ stored, doc });
        after.push(doc);
        if (doc.status === "executing" && doc.legs.some((l) => l.status === "broadcast")) inFlight.push(doc);
      }
      await PAYOUTS.updateMany(uow.tx, updates, uow.now);
      await options.recorded?.(uow, after);
      await this.batches.apply(uow, changes);
      const delay = await this.pollDelay(inFlight, livemode);
      if (options.startTracking && inFlight.length) {
        this.transitions.scheduleTracking(
          uow,
          inFlight.map((d) => d.id),
          uow.now + delay,
        );
      }
      if (options.finish && inFlight.length === 0) await uow.tx.work.complete(options.finish.id, options.finish.leaseOwner);
      return ok({ inFlight: inFlight.length, delay });
    };
    const next = await this.deps.storage.command(ctx, command, options.durable === false ? { durable: false } : {});
    if (next.isErr()) throw next.error;
    return next.value;
  }

  private async read(accountId: string, ids: string[]): Promise<PayoutDoc[]> {
    const found = await this.deps.storage.read((tx) => PAYOUTS.getMany(tx, accountId, ids));
    return ids.map((id) => found.get(id)).filter((doc): doc is PayoutDoc => doc !== undefined);
  }

  /** The shortest block time among the chains still carrying legs: the next status worth asking. */
  private async pollDelay(docs: PayoutDoc[], livemode: boolean): Promise<number> {
    let delay = Number.POSITIVE_INFINITY;
    for (const doc of docs) {
      for (const leg of doc.legs) {
        if (leg.status !== "broadcast") continue;
        const key = `${livemode ? "live" : "test"}:${leg.chain}`;
        const adapter = this.deps.chains.for(leg.chain, livemode);
        if (!adapter) continue;
        if (!this.info.has(key)) this.info.set(key, await adapter.describe(leg.chain));
        delay = Math.min(delay, this.info.get(key)!.blockTimeMs);
      }
    }
    return Number.isFinite(delay) ? delay : 1_000;
  }
}

/** What one payout comes to in a step of `apply`: the document to save and the leg events to apply. */
type PlanStep = (uow: UnitOfWork, doc: PayoutDoc) => { doc: PayoutDoc; events?: Map<string, LegEvent> | undefined; changed?: boolean };

interface ApplyOptions {
  startTracking?: boolean;
  finish?: Job<PayoutIds>;
  prepare?: (uow: UnitOfWork, docs: PayoutDoc[]) => Promise<void>;
  recorded?: (uow: UnitOfWork, docs: PayoutDoc[]) => Promise<void>;
  /**
   * The payouts as the caller itself just wrote them: used as they are, neither read nor locked
   * (no round trips). If one changed meanwhile its versioned write fails the transaction
   * (`StaleResourceError`), and the step runs again the usual way, locked.
   */
  assumed?: Stored<PayoutDoc>[];
  /** False: the transaction commits without waiting for the disk (`CommitOptions.durable`). */
  durable?: boolean;
}

/**
 * How `sendClaimed` records the sends: `recorded` runs in that transaction with the payouts as
 * it leaves them; `assumed` and `durable` as `ApplyOptions` say.
 */
type RecordOptions = Pick<ApplyOptions, "recorded" | "assumed" | "durable">;

/** Capped exponential retry after transient chain failures; the work never gives up. */
function retry(deps: Pick<ModuleDeps, "clock">, job: Job<PayoutIds>, error: string): WorkOutcome {
  const delay = Math.min(TRANSIENT_RETRY_MAX_MS, TRANSIENT_RETRY_MS * 2 ** Math.max(0, job.attempts - 1));
  return { kind: "retry", at: deps.clock.now() + delay, error };
}

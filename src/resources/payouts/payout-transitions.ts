import { createHash } from "node:crypto";
import { legMachine, type LegEvent } from "./leg-machine";
import { memoizedSteps, startMachine, stepMachine, type MachineStep } from "../../engine/machine-step";
import { payoutMachine, type PayoutEvent, type PayoutStatus } from "./payout-machine";
import { COUNTER, isCustomerBook } from "../../ledger/postings";
import type { ModuleDeps } from "../../engine/context";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { legEntries, presentLeg, presentPayout, sign, withEntries, type LegDoc, type LegEntry, type PayoutDoc } from "./payout-doc";
import { PAYOUT_BROADCAST, PAYOUT_TRACK } from "./payout-work";
import { expectOk } from "../../errors";
import type { PayoutFinished } from "../../ports/observer";

/** The final statuses of a payout, as the observer names its outcomes. */
const FINISHED: ReadonlySet<PayoutStatus> = new Set<PayoutFinished["outcome"]>(["settled", "partially_settled", "failed", "canceled"]);

/** A status change, for the counts of the payout's batch. */
export interface StatusChange {
  batch: string | null;
  from: PayoutStatus | null;
  to: PayoutStatus;
}

/** A payout about to start: everything but what its machine decides. */
export type NewPayout = Omit<PayoutDoc, "status" | "machine">;

export interface ApplyOptions {
  /** Leave scheduling of broadcasts to the caller (a batch schedules them in chunks). */
  deferBroadcast?: boolean;
}

/**
 * Carries out what the payout and leg machines decide, inside the caller's unit of work: the
 * ledger postings of legs (post at finality, release on failure or cancel), the events, and the
 * due work that moves payouts on. Every change of a payout goes through here, so each machine
 * transition has exactly its effects, once.
 */
export class PayoutTransitions {
  /**
   * The payout machine's first step, which depends on `requiresApproval` alone (machines are
   * pure): computed once for each value rather than once per payout of a 25,000-leg batch.
   */
  private readonly firstSteps = new Map<boolean, MachineStep<typeof payoutMachine>>();
  /** Its later steps, kept the same way: a payout's context and events repeat from payout to payout. */
  private readonly payoutStep = memoizedSteps(payoutMachine);

  constructor(private readonly deps: Pick<ModuleDeps, "assets" | "house">) {}

  /** A new payout (legs pending, reservations made): its first transition decides its status. */
  start(uow: UnitOfWork, draft: NewPayout, requiresApproval: boolean, options: ApplyOptions = {}): { doc: PayoutDoc; change: StatusChange } {
    const step = this.firstStep(requiresApproval);
    const next: PayoutDoc = { ...draft, status: step.value, machine: { ...step.context } };
    const emits: (() => void)[] = [];
    for (const action of step.actions) {
      switch (action.type) {
        case "emitCreated":
          emits.push(() => uow.emit("payout.created", presentPayout(this.deps.assets, next)));
          break;
        case "startExecution":
          if (!options.deferBroadcast) this.scheduleBroadcast(uow, [next.id]);
          break;
      }
    }
    for (const emit of emits) emit();
    return { doc: next, change: { batch: draft.batch, from: null, to: next.status } };
  }

  /** The status a new payout starts in (its machine's first step decides it from `requiresApproval` alone). */
  firstStatus(requiresApproval: boolean): PayoutStatus {
    return this.firstStep(requiresApproval).value;
  }

  private firstStep(requiresApproval: boolean): MachineStep<typeof payoutMachine> {
    let step = this.firstSteps.get(requiresApproval);
    if (!step) this.firstSteps.set(requiresApproval, (step = startMachine(payoutMachine, { requiresApproval })));
    return step;
  }

  /** An event for the payout itself (approve, cancel); `handled` is false when its state refuses it. */
  async onPayout(uow: UnitOfWork, doc: PayoutDoc, event: Extract<PayoutEvent, { type: "approve" | "cancel" }>) {
    return this.apply(uow, doc, new Map(), event);
  }

  /** Events for legs (broadcast results, chain statuses); the payout follows its legs. */
  async onLegs(uow: UnitOfWork, doc: PayoutDoc, legEvents: Map<string, LegEvent>) {
    return this.apply(uow, doc, legEvents, null);
  }

  scheduleBroadcast(uow: UnitOfWork, payouts: string[], runAt?: number): void {
    uow.schedule(PAYOUT_BROADCAST, { payouts }, runAt === undefined ? {} : { runAt });
  }

  /** One tracking item per set of payouts: it reschedules itself until none is in flight. */
  scheduleTracking(uow: UnitOfWork, payouts: string[], runAt: number): void {
    const key = createHash("sha256")
      .update([...payouts].sort().join(","))
      .digest("base64url");
    uow.schedule(PAYOUT_TRACK, { payouts }, { runAt, dedupeKey: `${PAYOUT_TRACK.kind}:${key}` });
  }

  private async apply(
    uow: UnitOfWork,
    original: PayoutDoc,
    legEvents: Map<string, LegEvent>,
    payoutEvent: Extract<PayoutEvent, { type: "approve" | "cancel" }> | null,
  ): Promise<{ doc: PayoutDoc; handled: boolean; change: StatusChange | null }> {
    const asset = this.deps.assets.get(original.asset)!;
    let doc: PayoutDoc = { ...original, legs: [...original.legs] };
    const emits: (() => void)[] = [];
    let handled = false;

    const runLeg = async (index: number, event: LegEvent) => {
      const leg = doc.legs[index]!;
      const step = stepMachine(legMachine, { value: leg.status, context: leg.machine }, event);
      if (!step.handled) return;
      handled = true;
      let next: LegDoc = { ...leg, status: step.value, machine: step.context };
      doc.legs[index] = next;
      for (const action of step.actions) {
        switch (action.type) {
          case "emitLegBroadcast": {
            const announced = next;
            emits.push(() => uow.emit("payout.leg.broadcast", presentLeg(asset, announced, doc.id)));
            break;
          }
          case "postLeg":
            next = withEntries(next, await this.postLeg(uow, doc.id, next, action.params.feePaid));
            break;
          case "releaseLeg": {
            // A release gives back the whole reservation, the leg's fee included.
            const from = uow.ledger.postedFor(doc.id).length;
            expectOk(await uow.ledger.release(uow.ctx.accountId, next.reservation), "a failed leg releases its reservation");
            const fee = BigInt(next.fee);
            next = withEntries(
              next,
              legEntries(uow.ctx.accountId, uow.ledger.postedFor(doc.id).slice(from), (e) => sign(e.amount) * fee),
            );
            break;
          }
        }
      }
      doc.legs[index] = next;
      if (next.status === "confirmed" || next.status === "failed") {
        const reason = next.status === "failed" ? next.machine.failureCode : null;
        uow.observe({ type: "leg_finished", chain: next.chain, asset: asset.code, livemode: uow.ctx.livemode, outcome: next.status, reason });
      }
    };

    for (const [legId, event] of legEvents) {
      const index = doc.legs.findIndex((l) => l.id === legId);
      if (index >= 0) await runLeg(index, event);
    }

    const before = doc.status;
    const payoutEvents: PayoutEvent[] = [];
    if (payoutEvent) payoutEvents.push(payoutEvent);
    if (legEvents.size > 0) {
      const confirmed = doc.legs.filter((l) => l.status === "confirmed").length;
      const failed = doc.legs.filter((l) => l.status === "failed").length;
      payoutEvents.push({ type: "legs_changed", total: doc.legs.length, confirmed, failed });
    }
    for (const event of payoutEvents) {
      const step = this.payoutStep({ value: doc.status, context: doc.machine }, event);
      if (!step.handled) continue;
      handled = true;
      doc = { ...doc, status: step.value, machine: { ...step.context } };
      for (const action of step.actions) {
        switch (action.type) {
          case "startExecution":
            this.scheduleBroadcast(uow, [doc.id]);
            break;
          case "cancelLegs":
            doc.canceledAt = uow.now;
            for (let i = 0; i < doc.legs.length; i++) await runLeg(i, { type: "cancel", reason: "payout_canceled" });
            break;
          case "emitSettled":
            doc.settledAt = uow.now;
            emits.push(() => uow.emit("payout.settled", presentPayout(this.deps.assets, doc)));
            break;
          case "emitPartiallySettled":
            doc.settledAt = uow.now;
            emits.push(() => uow.emit("payout.partially_settled", presentPayout(this.deps.assets, doc)));
            break;
          case "emitFailed":
            emits.push(() => uow.emit("payout.failed", presentPayout(this.deps.assets, doc)));
            break;
        }
      }
    }
    const known = new Set(doc.ledgerEntries);
    // the account's own entries: a fee margin posted to the house account is not the payout owner's
    const entries = uow.ledger.postedFor(doc.id).filter((e) => e.accountId === uow.ctx.accountId && isCustomerBook(e.book) && !known.has(e.id));
    if (entries.length) doc.ledgerEntries = [...doc.ledgerEntries, ...entries.map((e) => e.id)];
    for (const emit of emits) emit();
    if (doc.status !== before && FINISHED.has(doc.status)) {
      const outcome = doc.status as PayoutFinished["outcome"];
      uow.observe({ type: "payout_finished", asset: asset.code, livemode: uow.ctx.livemode, outcome, durationMs: Math.max(0, uow.now - doc.created) });
    }
    return { doc, handled, change: doc.status !== before ? { batch: doc.batch, from: before, to: doc.status } : null };
  }

  /**
   * A final leg: the recipient's amount leaves to the chain, the fee to the network (and house).
   * Returns the leg's entries: the send carries no fee, everything after it is fee.
   */
  private async postLeg(uow: UnitOfWork, payoutId: string, leg: LegDoc, feePaid: bigint | null): Promise<LegEntry[]> {
    const amount = BigInt(leg.amount);
    const fee = BigInt(leg.fee);
    const accountId = uow.ctx.accountId;
    const { ledger } = uow;
    const from = ledger.postedFor(payoutId).length;
    expectOk(
      await ledger.capture(accountId, leg.reservation, amount, COUNTER.outbound, { transition: `${leg.id}:sent`, final: fee === 0n }),
      "a final leg captures its amount",
    );
    const sent = ledger.postedFor(payoutId).length;
    const entries = () => {
      const posted = ledger.postedFor(payoutId);
      return [...legEntries(accountId, posted.slice(from, sent), () => 0n), ...legEntries(accountId, posted.slice(sent), (e) => e.amount)];
    };
    if (fee === 0n) return entries();
    // What the chain charged goes to the network; what the leg charged beyond it is the house's margin.
    const paid = feePaid === null || feePaid > fee ? fee : feePaid;
    expectOk(
      await ledger.capture(accountId, leg.reservation, paid, COUNTER.networkFees, { transition: `${leg.id}:fee`, final: paid === fee }),
      "a final leg captures its fee",
    );
    if (paid < fee) {
      const house = { accountId: uow.deps.house[uow.ctx.livemode ? "live" : "test"], book: "available" as const };
      expectOk(
        await ledger.capture(accountId, leg.reservation, fee - paid, house, { transition: `${leg.id}:margin`, final: true }),
        "a final leg keeps its fee margin",
      );
    }
    return entries();
  }
}

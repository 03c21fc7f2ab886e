import { ok } from "neverthrow";
import { COUNTER, isCustomerBook, transfer, type PostingLine } from "../../ledger/postings";
import { stepMachine, type ActionOf } from "../../engine/machine-step";
import { paymentIntentMachine, type PaymentIntentEvent, type PaymentIntentStatus } from "./payment-intent-machine";
import type { Book } from "../../ports/storage";
import type { Finality, InboundTransfer } from "../../ports/chain";
import { systemContext, type ModuleDeps } from "../../engine/context";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { PAYMENT_INTENTS, creditedIn, presentPaymentIntent, type PaymentIntentDoc, type SettlementDoc } from "./payment-intent-doc";
import { expectOk } from "../../errors";

const RANK: Record<Finality, number> = { pending: 0, included: 1, final: 2, reverted: 3 };

/** How a notification moves a credited deposit in the ledger. */
type LedgerMove = { from: Book; to: Book; state: SettlementDoc["ledger"] } | null;

const MOVES: Record<SettlementDoc["ledger"], Partial<Record<Finality, LedgerMove>>> = {
  none: {
    pending: { from: COUNTER.inbound, to: "pending", state: "pending" },
    included: { from: COUNTER.inbound, to: "pending", state: "pending" },
    final: { from: COUNTER.inbound, to: "available", state: "available" },
  },
  pending: {
    final: { from: "pending", to: "available", state: "available" },
    reverted: { from: "pending", to: COUNTER.inbound, state: "reversed" },
  },
  available: { reverted: { from: "available", to: COUNTER.inbound, state: "reversed" } },
  reversed: {},
};

/**
 * Turns what chains report about deposits into settlements, ledger postings and intent states.
 * Notifications may repeat, come late or out of order: a settlement only moves forward
 * (pending → included → final, or to reverted, which is final), so a stale or repeated
 * notification changes nothing, and each ledger move happens once because it is tied to the
 * settlement's own state. Funds are `pending` until final and `available` from then on; a
 * deposit removed by a reorganisation is reversed with new entries.
 */
export class DepositIngestion {
  constructor(private readonly deps: Pick<ModuleDeps, "assets" | "ids" | "storage">) {}

  /**
   * Applies notifications (any chains, any order, duplicates allowed); returns how many moved.
   * Transfers of no value are ignored (address-poisoning spam moves nothing). One intent that
   * fails does not stop the others: they are applied, then the first failure is thrown, so the
   * caller keeps its cursor and the same news comes again (applied twice, it changes nothing).
   */
  async ingest(news: readonly InboundTransfer[]): Promise<number> {
    const transfers = news.filter((t) => t.amount > 0n);
    if (transfers.length === 0) return 0;
    const addresses = [...new Set(transfers.map((t) => t.address))];
    const owners = await this.deps.storage.read((tx) => tx.depositAddresses.find(addresses));
    const byAddress = new Map(owners.map((o) => [o.address, o]));
    const byIntent = new Map<string, { accountId: string; transfers: InboundTransfer[] }>();
    for (const t of transfers) {
      const owner = byAddress.get(t.address);
      if (!owner) continue; // not ours
      const group = byIntent.get(owner.resource) ?? { accountId: owner.accountId, transfers: [] };
      group.transfers.push(t);
      byIntent.set(owner.resource, group);
    }
    let moved = 0;
    let failure: unknown = null;
    for (const [intentId, { accountId, transfers: mine }] of [...byIntent].sort(([a], [b]) => (a < b ? -1 : 1))) {
      try {
        moved += await this.ingestFor(accountId, intentId, mine);
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure) throw failure;
    return moved;
  }

  /** One intent's news in one transaction. */
  private async ingestFor(accountId: string, intentId: string, mine: InboundTransfer[]): Promise<number> {
    const account = await this.deps.storage.read((tx) => tx.accounts.getAccount(accountId));
    const result = await this.deps.storage.command(systemContext(accountId, account?.livemode ?? false), async (uow) => {
      const stored = await PAYMENT_INTENTS.get(uow.tx, accountId, intentId, { lock: true });
      if (!stored) return ok(0);
      let doc = stored.doc;
      let changes = 0;
      for (const t of mine) {
        const applied = await this.applyTransfer(uow, doc, t);
        if (applied) {
          doc = applied.doc;
          changes++;
          if (applied.unsupported) doc = this.step(uow, doc, { type: "unsupported" });
        }
      }
      if (changes === 0) return ok(0);
      doc = this.reconcile(uow, doc);
      await PAYMENT_INTENTS.update(uow.tx, stored, this.withEntries(uow, doc), uow.now);
      return ok(changes);
    });
    if (result.isErr()) throw result.error;
    return result.value;
  }

  /** Re-decides the status from the deposits (and the clock, for expiry). */
  reconcile(uow: UnitOfWork, doc: PaymentIntentDoc): PaymentIntentDoc {
    return this.step(uow, doc, {
      type: "reconcile",
      final: creditedIn(doc, "available"),
      pending: creditedIn(doc, "pending"),
      minimum: BigInt(doc.minimum),
      expired: uow.now >= doc.expiresAt,
    });
  }

  /** Records the ledger entries posted for the intent in this unit of work. */
  withEntries(uow: UnitOfWork, doc: PaymentIntentDoc): PaymentIntentDoc {
    const known = new Set(doc.ledgerEntries);
    const fresh = uow.ledger.postedFor(doc.id).filter((e) => isCustomerBook(e.book) && !known.has(e.id));
    return fresh.length ? { ...doc, ledgerEntries: [...doc.ledgerEntries, ...fresh.map((e) => e.id)] } : doc;
  }

  private step(uow: UnitOfWork, doc: PaymentIntentDoc, event: PaymentIntentEvent): PaymentIntentDoc {
    const step = stepMachine(paymentIntentMachine, { value: doc.status, context: {} }, event);
    if (!step.handled) return doc;
    const next = { ...doc, status: step.value };
    for (const action of step.actions) uow.emit(EVENT_OF[action.type], presentPaymentIntent(this.deps.assets, this.withEntries(uow, next)));
    return next;
  }

  private async applyTransfer(uow: UnitOfWork, doc: PaymentIntentDoc, t: InboundTransfer): Promise<{ doc: PaymentIntentDoc; unsupported: boolean } | null> {
    const index = doc.settlements.findIndex((s) => s.transferId === t.transferId);
    const existing = index >= 0 ? doc.settlements[index]! : null;
    if (existing) {
      if (existing.finality === "reverted") return null; // removed for good
      if (RANK[t.finality] < RANK[existing.finality]) return null; // stale news
      if (RANK[t.finality] === RANK[existing.finality] && t.confirmations <= existing.confirmations) return null; // repeated
    }
    const settlement: SettlementDoc = existing
      ? { ...existing, confirmations: t.confirmations, finality: t.finality }
      : {
          id: this.deps.ids.next("stl"),
          transferId: t.transferId,
          chain: t.chain,
          asset: t.asset,
          amount: t.amount.toString(),
          txHash: t.txHash,
          confirmations: t.confirmations,
          finality: t.finality,
          reason: !doc.chains.includes(t.chain)
            ? "unsupported_chain"
            : t.asset !== doc.asset
              ? "unsupported_asset"
              : t.seenAt >= doc.expiresAt || doc.status === "expired"
                ? "after_expiry"
                : null,
          ledger: "none",
          shortfall: "0",
          created: uow.now,
        };
    if (settlement.reason === null) {
      const move = MOVES[settlement.ledger][t.finality];
      if (move) {
        settlement.shortfall = (await this.post(uow, doc, settlement, move)).toString();
        settlement.ledger = move.state;
      }
    } else {
      await this.hold(uow, doc, settlement, t.finality);
    }
    if (!existing) {
      const delayMs = Math.max(0, uow.now - t.seenAt);
      uow.observe({ type: "deposit_detected", chain: t.chain, asset: t.asset, livemode: uow.ctx.livemode, delayMs });
    }
    const settlements = [...doc.settlements];
    if (existing) settlements[index] = settlement;
    else settlements.push(settlement);
    const unsupported = !existing && (settlement.reason === "unsupported_chain" || settlement.reason === "unsupported_asset");
    return { doc: { ...doc, settlements }, unsupported };
  }

  /**
   * A deposit credited to no account is still money the engine's addresses hold: it is booked
   * from `counter:inbound` into `counter:unallocated` (the operator's to return or to credit by
   * hand) while the chain has it, and back when a reorganisation removes it, each once.
   */
  private async hold(uow: UnitOfWork, doc: PaymentIntentDoc, s: SettlementDoc, finality: Finality): Promise<void> {
    const amount = BigInt(s.amount);
    const accountId = uow.ctx.accountId;
    if (s.held === undefined && finality !== "reverted") {
      const lines = transfer(s.asset, s.chain, COUNTER.inbound, COUNTER.unallocated, amount);
      expectOk(await uow.ledger.post({ accountId, resource: doc.id, transition: `${s.transferId}:unallocated`, lines }), "counters take any amount");
      s.held = "held";
    } else if (s.held === "held" && finality === "reverted") {
      const lines = transfer(s.asset, s.chain, COUNTER.unallocated, COUNTER.inbound, amount);
      expectOk(await uow.ledger.post({ accountId, resource: doc.id, transition: `${s.transferId}:released`, lines }), "counters take any amount");
      s.held = "released";
    }
  }

  /**
   * Posts a move; returns what could not be taken back. Only a reversal out of `available` can
   * fall short (the account may have spent the deposit): then it takes what is there, and the
   * rest stays with the engine's inbound counter-account as a loss, recorded on the settlement.
   */
  private async post(uow: UnitOfWork, doc: PaymentIntentDoc, s: SettlementDoc, move: NonNullable<LedgerMove>): Promise<bigint> {
    const amount = BigInt(s.amount);
    const accountId = uow.ctx.accountId;
    const lines: PostingLine[] = transfer(s.asset, s.chain, move.from, move.to, amount);
    // A settlement's ledger state only moves forward: one posting per (transfer, state) reached.
    const transition = `${s.transferId}:${move.state}`;
    const posted = await uow.ledger.post({ accountId, resource: doc.id, transition, lines });
    if (posted.isOk()) return 0n;
    if (move.from !== "available") throw posted.error; // pending always holds its own deposits
    const left = uow.ledger.lockedRows(accountId, s.asset).find((r) => r.chain === s.chain && r.book === "available")?.amount ?? 0n;
    const take = left < amount ? left : amount;
    if (take > 0n) {
      expectOk(
        await uow.ledger.post({ accountId, resource: doc.id, transition, lines: transfer(s.asset, s.chain, "available", move.to, take) }),
        "available holds what was taken from it",
      );
    }
    return amount - take;
  }
}

/** The event each of the machine's actions announces (every action of the machine is one). */
const EVENT_OF: Record<ActionOf<typeof paymentIntentMachine>["type"], `payment_intent.${PaymentIntentStatus}`> = {
  emitProcessing: "payment_intent.processing",
  emitSucceeded: "payment_intent.succeeded",
  emitPartiallyPaid: "payment_intent.partially_paid",
  emitExpired: "payment_intent.expired",
  emitReverted: "payment_intent.reverted",
  emitUnsupported: "payment_intent.unsupported_chain",
  emitRequiresPayment: "payment_intent.requires_payment",
};

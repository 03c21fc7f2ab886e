import { canStep, stepMachine, type ActionOf } from "../../engine/machine-step";
import type { ModuleDeps } from "../../engine/context";
import type { Stored } from "../../engine/doc-store";
import type { UnitOfWork } from "../../engine/unit-of-work";
import { releaseReservations } from "../conversion";
import { LIMIT_ORDERS, type LimitOrderDoc, type LimitOrderObject, presentLimitOrder } from "./limit-order-doc";
import { limitOrderMachine, type CancellationReason, type LimitOrderAnnouncement, type LimitOrderEvent } from "./limit-order-machine";
import { LIMIT_ORDER_EXPIRE, LIMIT_ORDER_MATCH } from "./limit-order-work";

/** Whether an order is still open: its machine takes a cancel (working or partially filled). */
export function isOpen(doc: LimitOrderDoc): boolean {
  return canStep(limitOrderMachine, { value: doc.status, context: { partialFills: doc.partialFills } }, { type: "cancel", reason: "requested" });
}

/**
 * Carries out what the limit-order machine decides, inside the caller's unit of work: the
 * scheduled matching and expiry, releases, and the events. Every change of an order's status
 * goes through here (the API's cancel, expiry, fills), so each transition has its effects once.
 */
export class LimitOrderTransitions {
  constructor(private readonly deps: Pick<ModuleDeps, "assets">) {}

  /** Cancels an open order read under lock in this transaction: releases, announces. */
  async cancelWithin(uow: UnitOfWork, accountId: string, stored: Stored<LimitOrderDoc>, reason: CancellationReason): Promise<LimitOrderDoc> {
    const doc = stored.doc;
    const step = stepMachine(limitOrderMachine, { value: doc.status, context: { partialFills: doc.partialFills } }, {
      type: "cancel",
      reason,
    } satisfies LimitOrderEvent);
    const next: LimitOrderDoc = {
      ...doc,
      status: step.value,
      cancellationReason: reason,
      // A fill decided but not applied is dropped: the customer's side never moves for it.
      pending: null,
      reserved: "0",
    };
    await LIMIT_ORDERS.update(uow.tx, stored, next, uow.now);
    await this.carryOut(uow, accountId, next, step.actions);
    return next;
  }

  /** Carries out the machine's actions in this transaction. */
  async carryOut(uow: UnitOfWork, accountId: string, doc: LimitOrderDoc, actions: ActionOf<typeof limitOrderMachine>[]): Promise<void> {
    const announce: LimitOrderAnnouncement[] = [];
    for (const action of actions) {
      switch (action.type) {
        case "watch": {
          const payload = { order: doc.id };
          uow.schedule(LIMIT_ORDER_MATCH, payload, { accountId, dedupeKey: `${LIMIT_ORDER_MATCH.kind}:${doc.id}` });
          uow.schedule(LIMIT_ORDER_EXPIRE, payload, {
            accountId,
            runAt: doc.expiresAt + 1,
            dedupeKey: `${LIMIT_ORDER_EXPIRE.kind}:${doc.id}`,
          });
          break;
        }
        case "release":
          await releaseReservations(uow, accountId, doc.reservations);
          break;
        case "announce":
          announce.push(action.params.type);
          break;
      }
    }
    for (const type of announce) uow.emit(type, this.present(doc), accountId);
  }

  present(doc: LimitOrderDoc): LimitOrderObject {
    return presentLimitOrder(this.deps.assets, doc);
  }
}

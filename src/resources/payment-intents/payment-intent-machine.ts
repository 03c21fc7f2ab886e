import { setup } from "xstate";
import { statesOf, type StateOf } from "../../engine/machine-step";

/**
 * What the intent's deposits add up to, recomputed from its settlements after every change; the
 * machine decides the status from it alone, so duplicated or reordered notifications that leave
 * the deposits as they were change nothing.
 */
export interface DepositTally {
  /** Σ credited deposits that are final. */
  final: bigint;
  /** Σ credited deposits seen but not final. */
  pending: bigint;
  /** What counts as paid: amount × (1 − tolerance), rounded up. */
  minimum: bigint;
  /** The intent's expiry has passed. */
  expired: boolean;
}

export type PaymentIntentEvent = ({ type: "reconcile" } & DepositTally) | { type: "unsupported" };

// Context is empty: everything the machine decides from arrives with the event.
type Context = Record<string, never>;

const paid = (t: DepositTally) => t.final >= t.minimum;

/** The states a reconcile may leave an intent in or move it from (the machine's, below). */
type OpenState = "requires_payment" | "unsupported_chain" | "processing" | "partially_paid" | "reverted";

/**
 * A payment intent (the seed's states; docs/decisions.md §4).
 *
 * | from                              | event                               | to               | action          |
 * |-----------------------------------|-------------------------------------|------------------|-----------------|
 * | any open state                    | reconcile: final ≥ minimum          | succeeded        | emitSucceeded   |
 * | any open state                    | reconcile: something pending        | processing       | emitProcessing  |
 * | any open state                    | reconcile: expired, nothing pending | expired          | emitExpired     |
 * | any open state                    | reconcile: some final, short        | partially_paid   | emitPartiallyPaid |
 * | processing, partially_paid        | reconcile: nothing (a reorg)        | requires_payment | emitRequiresPayment |
 * | requires_payment                  | unsupported (wrong chain or asset)  | unsupported_chain| emitUnsupported |
 * | succeeded                         | reconcile: final < minimum (reorg)  | reverted         | emitReverted    |
 * Open states: requires_payment, processing, partially_paid, unsupported_chain, reverted.
 * expired is final. A state is only re-entered (and its event emitted) when it changes.
 */
export const paymentIntentMachine = setup({
  types: {
    context: {} as Context,
    events: {} as PaymentIntentEvent,
  },
  actions: {
    emitProcessing: () => undefined,
    emitSucceeded: () => undefined,
    emitPartiallyPaid: () => undefined,
    emitExpired: () => undefined,
    emitReverted: () => undefined,
    emitUnsupported: () => undefined,
    emitRequiresPayment: () => undefined,
  },
  guards: {
    paid: ({ event }) => event.type === "reconcile" && paid(event),
    pending: ({ event }) => event.type === "reconcile" && event.pending > 0n,
    expired: ({ event }) => event.type === "reconcile" && event.expired,
    short: ({ event }) => event.type === "reconcile" && event.final > 0n,
    nothing: ({ event }) => event.type === "reconcile" && event.final === 0n && event.pending === 0n,
    unpaid: ({ event }) => event.type === "reconcile" && !paid(event),
  },
}).createMachine({
  id: "payment_intent",
  initial: "requires_payment",
  context: {},
  states: {
    requires_payment: {
      on: {
        reconcile: open("requires_payment"),
        unsupported: { target: "unsupported_chain", actions: "emitUnsupported" },
      },
    },
    unsupported_chain: { on: { reconcile: open("unsupported_chain") } },
    processing: { on: { reconcile: open("processing") } },
    partially_paid: { on: { reconcile: open("partially_paid") } },
    reverted: { on: { reconcile: open("reverted") } },
    succeeded: {
      on: { reconcile: { guard: "unpaid", target: "reverted", actions: "emitReverted" } },
    },
    expired: { type: "final" },
  },
});

/**
 * The reconcile transitions of an open state, first match wins. Staying where it is emits
 * nothing; an intent told it was paid on an unsupported chain, or reverted, stays so until
 * something is credited.
 */
function open(self: OpenState) {
  const rules: [string, string, string][] = [
    ["succeeded", "emitSucceeded", "paid"],
    ["processing", "emitProcessing", "pending"],
    ["expired", "emitExpired", "expired"],
    ["partially_paid", "emitPartiallyPaid", "short"],
    // back to requires_payment only when a reorganisation removed every deposit it had counted
    [self === "unsupported_chain" || self === "reverted" ? self : "requires_payment", "emitRequiresPayment", "nothing"],
  ];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- built rules; xstate's literal types are checked by the tests
  return rules.map(([target, action, guard]): any => (target === self ? { guard } : { guard, target, actions: action }));
}

/** A payment intent's status: a state of its machine. */
export type PaymentIntentStatus = StateOf<typeof paymentIntentMachine>;

/** Every payment intent status, in the machine's order (the API's enum and the list filter's). */
export const PAYMENT_INTENT_STATUSES = statesOf(paymentIntentMachine);

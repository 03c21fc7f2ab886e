import { setup } from "xstate";
import { finalStatesOf, statesOf, type StateOf } from "../../engine/machine-step";

export interface PayoutContext {
  /** Above the account's approval threshold: waits in created for an approval. */
  requiresApproval: boolean;
}

/** Where the legs stand, counted after each change; the payout decides from it. */
export interface LegTally {
  total: number;
  confirmed: number;
  failed: number;
}

export type PayoutEvent = { type: "approve" } | { type: "cancel" } | ({ type: "legs_changed" } & LegTally);

const allTerminal = (t: LegTally) => t.confirmed + t.failed === t.total;

/**
 * A payout (the seed's payout table, docs/decisions.md §3 policy).
 *
 * | from      | event                                | to                | actions                    |
 * |-----------|--------------------------------------|-------------------|----------------------------|
 * | (none)    | create, approval not required        | executing         | emitCreated, startExecution|
 * | (none)    | create, above approval threshold     | created           | emitCreated                |
 * | created   | approve                              | executing         | startExecution             |
 * | created   | cancel                               | canceled          | cancelLegs                 |
 * | executing | legs_changed: every leg confirmed    | settled           | emitSettled                |
 * | executing | legs_changed: some confirmed, rest failed | partially_settled | emitPartiallySettled |
 * | executing | legs_changed: every leg failed       | failed            | emitFailed                 |
 * Leg broadcasts stay in executing; settled, partially_settled, failed and canceled are final.
 */
export const payoutMachine = setup({
  types: {
    context: {} as PayoutContext,
    events: {} as PayoutEvent,
    input: {} as { requiresApproval?: boolean } | undefined,
  },
  actions: {
    emitCreated: () => undefined,
    startExecution: () => undefined,
    cancelLegs: () => undefined,
    emitSettled: () => undefined,
    emitPartiallySettled: () => undefined,
    emitFailed: () => undefined,
  },
  guards: {
    autoApproved: ({ context }) => !context.requiresApproval,
    allConfirmed: ({ event }) => event.type === "legs_changed" && event.total > 0 && event.confirmed === event.total,
    allFailed: ({ event }) => event.type === "legs_changed" && event.total > 0 && event.failed === event.total,
    someOfEach: ({ event }) => event.type === "legs_changed" && allTerminal(event) && event.confirmed > 0 && event.failed > 0,
  },
}).createMachine({
  id: "payout",
  initial: "created",
  context: ({ input }) => ({ requiresApproval: input?.requiresApproval ?? false }),
  entry: "emitCreated",
  states: {
    created: {
      always: { guard: "autoApproved", target: "executing" },
      on: {
        approve: "executing",
        cancel: { target: "canceled", actions: "cancelLegs" },
      },
    },
    executing: {
      entry: "startExecution",
      on: {
        legs_changed: [
          { guard: "allConfirmed", target: "settled", actions: "emitSettled" },
          { guard: "allFailed", target: "failed", actions: "emitFailed" },
          { guard: "someOfEach", target: "partially_settled", actions: "emitPartiallySettled" },
        ],
      },
    },
    settled: { type: "final" },
    partially_settled: { type: "final" },
    failed: { type: "final" },
    canceled: { type: "final" },
  },
});

/** A payout's status: a state of its machine. */
export type PayoutStatus = StateOf<typeof payoutMachine>;

/** Every payout status, in the machine's order (the API's enum and the list filter's). */
export const PAYOUT_STATUSES = statesOf(payoutMachine);

/** The statuses a payout ends in: a batch completes when all its payouts are in one of them. */
export const FINAL_PAYOUT_STATUSES = finalStatesOf(payoutMachine);

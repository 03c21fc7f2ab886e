import { assign, setup } from "xstate";
import { startMachine, statesOf, type StateOf } from "../../engine/machine-step";
import type { Finality } from "../../ports/chain";

/** What a leg remembers beside its status (the seed's leg fields). */
export interface LegContext {
  txHash: string | null;
  confirmations: number;
  finality: Finality;
  failureCode: string | null;
}

export type LegEvent =
  | { type: "broadcast"; txHash: string }
  | { type: "rejected"; reason: string }
  | { type: "status"; confirmations: number; finality: Finality; failure: string | null; feePaid?: bigint | null; txHash?: string }
  | { type: "cancel"; reason: string };

/**
 * One transfer of a payout on one chain (docs/decisions.md §4 leg statuses and finality).
 *
 * | from      | event                       | to        | actions                      |
 * |-----------|-----------------------------|-----------|------------------------------|
 * | pending   | broadcast (tx hash)         | broadcast | emitLegBroadcast             |
 * | pending   | rejected (refused at send)  | failed    | releaseLeg                   |
 * | pending   | cancel (payout canceled)    | failed    | releaseLeg                   |
 * | broadcast | status, failure             | failed    | releaseLeg                   |
 * | broadcast | status, final               | confirmed | postLeg (with the fee paid)  |
 * | broadcast | status, otherwise           | broadcast | (confirmations and finality) |
 * confirmed and failed are final: they absorb every later event.
 */
/**
 * Whether `event` may post or release the leg's reservation (the rows above with postLeg or
 * releaseLeg), so the reservation is worth locking before it is applied. A miss costs only a
 * lock taken on demand; a broadcast or a confirmation short of finality moves nothing.
 */
export function mayMoveFunds(event: LegEvent): boolean {
  if (event.type === "broadcast") return false;
  return event.type !== "status" || event.failure !== null || event.finality === "final";
}

export const legMachine = setup({
  types: {
    context: {} as LegContext,
    events: {} as LegEvent,
  },
  actions: {
    emitLegBroadcast: () => undefined,
    postLeg: (_, _params: { feePaid: bigint | null }) => undefined,
    releaseLeg: () => undefined,
  },
  guards: {
    failed: ({ event }) => event.type === "status" && event.failure !== null,
    final: ({ event }) => event.type === "status" && event.finality === "final",
  },
}).createMachine({
  id: "leg",
  initial: "pending",
  context: { txHash: null, confirmations: 0, finality: "pending", failureCode: null },
  states: {
    pending: {
      on: {
        broadcast: {
          target: "broadcast",
          actions: [assign({ txHash: ({ event }) => event.txHash }), "emitLegBroadcast"],
        },
        rejected: { target: "failed", actions: [assign({ failureCode: () => "broadcast_rejected" }), "releaseLeg"] },
        cancel: { target: "failed", actions: [assign({ failureCode: ({ event }) => event.reason }), "releaseLeg"] },
      },
    },
    broadcast: {
      on: {
        status: [
          {
            guard: "failed",
            target: "failed",
            actions: [assign({ failureCode: () => "transfer_failed", finality: ({ event }) => event.finality, txHash: carriedBy }), "releaseLeg"],
          },
          {
            guard: "final",
            target: "confirmed",
            actions: [
              assign({ confirmations: ({ event }) => event.confirmations, finality: () => "final" as const, txHash: carriedBy }),
              { type: "postLeg", params: ({ event }) => ({ feePaid: event.type === "status" ? (event.feePaid ?? null) : null }) },
            ],
          },
          {
            actions: assign({
              confirmations: ({ event }) => event.confirmations,
              finality: ({ event }) => event.finality,
              txHash: carriedBy,
            }),
          },
        ],
      },
    },
    confirmed: { type: "final" },
    failed: { type: "final" },
  },
});

/** The transaction carrying the leg: a status may name a fee replacement that took its place. */
function carriedBy({ context, event }: { context: LegContext; event: LegEvent }): string | null {
  return event.type === "status" && event.txHash ? event.txHash : context.txHash;
}

/** A leg's status: a state of its machine. */
export type LegStatus = StateOf<typeof legMachine>;

/** Every leg status, in the machine's order (the API's enum). */
export const LEG_STATUSES = statesOf(legMachine);

const LEG_START = startMachine(legMachine);

/** Where every leg starts: the machine's initial state, and a context of its own. */
export function newLeg(): { status: LegStatus; machine: LegContext } {
  return { status: LEG_START.value, machine: { ...LEG_START.context } };
}

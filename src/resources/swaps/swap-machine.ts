import { setup } from "xstate";
import { statesOf, type StateOf } from "../../engine/machine-step";

export type SwapEvent = { type: "executed" } | { type: "rejected"; code: string };

export type SwapAnnouncement = "swap.executing" | "swap.settled" | "swap.failed";

/**
 * A swap (docs/decisions.md §4): accepted and sent to the venues (`executing`), then `settled` when
 * the output is credited or `failed` when the venues refuse. It only decides; the swaps service
 * carries out the named actions in the same transaction: `execute` (schedule the venue call),
 * `settle` (capture the input, credit the output), `refund` (release the reservation, with the
 * failure code) and `announce` (the event of the new state, after the document is updated).
 */
export const swapMachine = setup({
  types: {
    context: {} as Record<string, never>,
    events: {} as SwapEvent,
  },
  actions: {
    execute: () => undefined,
    settle: () => undefined,
    refund: (_, params: { code: string }) => params,
    announce: (_, params: { type: SwapAnnouncement }) => params,
  },
}).createMachine({
  id: "swap",
  initial: "executing",
  context: () => ({}),
  states: {
    executing: {
      entry: ["execute", { type: "announce", params: { type: "swap.executing" } }],
      on: {
        executed: { target: "settled" },
        rejected: { target: "failed", actions: [{ type: "refund", params: ({ event }) => ({ code: event.code }) }] },
      },
    },
    settled: { type: "final", entry: ["settle", { type: "announce", params: { type: "swap.settled" } }] },
    failed: { type: "final", entry: [{ type: "announce", params: { type: "swap.failed" } }] },
  },
});

/** A swap's status: a state of its machine. */
export type SwapStatus = StateOf<typeof swapMachine>;

/** Every swap status, in the machine's order (the API's enum and the list filter's). */
export const SWAP_STATUSES = statesOf(swapMachine);

import { setup } from "xstate";
import { statesOf, type StateOf } from "../../engine/machine-step";

/** How many of a batch's payouts have reached a final status, counted after each change. */
export type BatchEvent = { type: "counted"; final: number; total: number };

/**
 * A payout batch (docs/decisions.md §4): `processing` while any of its payouts moves, `completed`
 * once every one is final (settled, partially_settled, failed or canceled).
 *
 * | from       | event                        | to        | actions       |
 * |------------|------------------------------|-----------|---------------|
 * | processing | counted: every payout final  | completed | emitCompleted |
 * | processing | counted: otherwise           | (stays)   |               |
 * completed is final: a late count changes nothing (`payout.batch.completed` is sent once).
 */
export const batchMachine = setup({
  types: {
    context: {} as Record<string, never>,
    events: {} as BatchEvent,
  },
  actions: {
    emitCompleted: () => undefined,
  },
  guards: {
    allFinal: ({ event }) => event.total > 0 && event.final === event.total,
  },
}).createMachine({
  id: "payout_batch",
  initial: "processing",
  context: {},
  states: {
    processing: { on: { counted: { guard: "allFinal", target: "completed", actions: "emitCompleted" } } },
    completed: { type: "final" },
  },
});

/** A batch's status: a state of its machine. */
export type BatchStatus = StateOf<typeof batchMachine>;

/** Every batch status (the API's enum). */
export const BATCH_STATUSES = statesOf(batchMachine);

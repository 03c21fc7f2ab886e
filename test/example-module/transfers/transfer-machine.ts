import { setup } from "xstate";
import { statesOf, type StateOf } from "../../../src/engine/machine-step";

/**
 * A transfer between two accounts of one mode: `posted` when made (the funds moved at once),
 * `reversed` when its sender took it back (the funds moved back, if the receiver still had them).
 *
 * | from   | event   | to       | actions      |
 * |--------|---------|----------|--------------|
 * | (none) | create  | posted   | post, emitCreated |
 * | posted | reverse | reversed | unpost, emitReversed |
 * reversed is final.
 */
export const transferMachine = setup({
  types: { context: {} as Record<string, never>, events: {} as { type: "reverse" } },
  actions: {
    post: () => undefined,
    emitCreated: () => undefined,
    unpost: () => undefined,
    emitReversed: () => undefined,
  },
}).createMachine({
  id: "transfer",
  initial: "posted",
  context: {},
  states: {
    posted: { entry: ["post", "emitCreated"], on: { reverse: { target: "reversed", actions: ["unpost", "emitReversed"] } } },
    reversed: { type: "final" },
  },
});

export type TransferStatus = StateOf<typeof transferMachine>;
export const TRANSFER_STATUSES = statesOf(transferMachine);

import { setup } from "xstate";
import { statesOf, type StateOf } from "../../engine/machine-step";

export type ScreeningEvent =
  /** The recipient's name or addresses changed: what was screened no longer covers it. */
  | { type: "changed" }
  /** The provider's verdict on the version asked about. */
  | { type: "verdict"; status: "cleared" | "flagged" };

/**
 * A recipient's screening (docs/decisions.md §4 `screening_status`). Screening is asked for at
 * registration (`screening: true`), else the recipient stays `not_screened`.
 *
 * | from                     | event                       | to           | actions                 |
 * |--------------------------|-----------------------------|--------------|-------------------------|
 * | (none)                   | create, screening asked     | pending      | requestScreening        |
 * | (none)                   | create, no screening        | not_screened |                         |
 * | pending                  | verdict cleared / flagged   | cleared / flagged | announce           |
 * | pending, cleared, flagged| changed                     | pending      | requestScreening        |
 * A pending recipient cannot be paid until its verdict comes; a flagged one cannot be paid at all
 * (402 recipient_blocked) until a change is screened and cleared.
 */
export const screeningMachine = setup({
  types: {
    context: {} as { screening: boolean },
    events: {} as ScreeningEvent,
    input: {} as { screening?: boolean } | undefined,
  },
  actions: {
    requestScreening: () => undefined,
    announce: () => undefined,
  },
  guards: {
    screens: ({ context }) => context.screening,
    cleared: ({ event }) => event.type === "verdict" && event.status === "cleared",
    flagged: ({ event }) => event.type === "verdict" && event.status === "flagged",
  },
}).createMachine({
  id: "screening",
  initial: "not_screened",
  context: ({ input }) => ({ screening: input?.screening ?? false }),
  states: {
    not_screened: { always: { guard: "screens", target: "pending" } },
    pending: {
      entry: "requestScreening",
      on: {
        verdict: [
          { guard: "cleared", target: "cleared", actions: "announce" },
          { guard: "flagged", target: "flagged", actions: "announce" },
        ],
        changed: { target: "pending", reenter: true },
      },
    },
    cleared: { on: { changed: "pending" } },
    flagged: { on: { changed: "pending" } },
  },
});

/** A recipient's `screening_status`: a state of its machine. */
export type ScreeningStatus = StateOf<typeof screeningMachine>;

/** Every screening status, in the machine's order (the API's enum and the list filter's). */
export const SCREENING_STATUSES = statesOf(screeningMachine);

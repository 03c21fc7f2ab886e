import { assign, setup } from "xstate";
import { statesOf, type StateOf } from "../../engine/machine-step";

/** What a report remembers of its build beside its status. */
export interface ReportContext {
  rowCount: number | null;
  size: number | null;
  failureReason: string | null;
}

export type ReportEvent = { type: "built"; rowCount: number; size: number } | { type: "failed"; reason: string };

/**
 * A report (docs/decisions.md §4 and reports.md): `pending` while its file is built, `ready` once
 * the whole file is stored, `failed` when the build gave up.
 *
 * | from    | event                   | to     | actions   |
 * |---------|-------------------------|--------|-----------|
 * | pending | built (rows, bytes)     | ready  | emitReady |
 * | pending | failed (reason)         | failed | emitFailed |
 * ready and failed are final: a second build's answer changes nothing.
 */
export const reportMachine = setup({
  types: {
    context: {} as ReportContext,
    events: {} as ReportEvent,
  },
  actions: {
    emitReady: () => undefined,
    emitFailed: () => undefined,
  },
}).createMachine({
  id: "report",
  initial: "pending",
  context: { rowCount: null, size: null, failureReason: null },
  states: {
    pending: {
      on: {
        built: {
          target: "ready",
          actions: [assign({ rowCount: ({ event }) => event.rowCount, size: ({ event }) => event.size }), "emitReady"],
        },
        failed: { target: "failed", actions: [assign({ failureReason: ({ event }) => event.reason }), "emitFailed"] },
      },
    },
    ready: { type: "final" },
    failed: { type: "final" },
  },
});

/** A report's status: a state of its machine. */
export type ReportStatus = StateOf<typeof reportMachine>;

/** Every report status, in the machine's order (the API's enum). */
export const REPORT_STATUSES = statesOf(reportMachine);

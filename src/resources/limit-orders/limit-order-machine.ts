import { setup } from "xstate";
import { statesOf, type StateOf } from "../../engine/machine-step";

export type CancellationReason = "requested" | "expired";

export type LimitOrderEvent = { type: "fill"; complete: boolean } | { type: "cancel"; reason: CancellationReason };

export type LimitOrderAnnouncement = "limit_order.working" | "limit_order.partially_filled" | "limit_order.filled" | "limit_order.canceled";

/**
 * A limit order (docs/decisions.md §4): `working` while it watches the venues, `partially_filled`
 * after a tranche, `filled` when nothing remains, `canceled` when cancelled or expired. An
 * all-or-nothing order (`partialFills` false) has no partial step: a fill that does not
 * complete it is not handled. The limit-orders service carries out the actions: `watch`
 * (schedule matching and expiry), `release` (free what the reservation still holds) and
 * `announce` (the event, after the document is updated).
 */
export const limitOrderMachine = setup({
  types: {
    context: {} as { partialFills: boolean },
    events: {} as LimitOrderEvent,
    input: {} as { partialFills?: boolean } | undefined,
  },
  actions: {
    watch: () => undefined,
    release: () => undefined,
    announce: (_, params: { type: LimitOrderAnnouncement }) => params,
  },
  guards: {
    completes: ({ event }) => event.type === "fill" && event.complete,
    partialAllowed: ({ context, event }) => event.type === "fill" && !event.complete && context.partialFills,
  },
}).createMachine({
  id: "limit_order",
  initial: "working",
  context: ({ input }) => ({ partialFills: input?.partialFills ?? true }),
  states: {
    working: {
      entry: ["watch", { type: "announce", params: { type: "limit_order.working" } }],
      on: {
        fill: [
          { guard: "completes", target: "filled" },
          { guard: "partialAllowed", target: "partially_filled" },
        ],
        cancel: { target: "canceled" },
      },
    },
    partially_filled: {
      entry: [{ type: "announce", params: { type: "limit_order.partially_filled" } }],
      on: {
        fill: [
          { guard: "completes", target: "filled" },
          { guard: "partialAllowed", actions: [{ type: "announce", params: { type: "limit_order.partially_filled" } }] },
        ],
        cancel: { target: "canceled" },
      },
    },
    filled: { type: "final", entry: [{ type: "announce", params: { type: "limit_order.filled" } }] },
    canceled: { type: "final", entry: ["release", { type: "announce", params: { type: "limit_order.canceled" } }] },
  },
});

/** A limit order's status: a state of its machine. */
export type LimitOrderStatus = StateOf<typeof limitOrderMachine>;

/** Every limit order status, in the machine's order (the API's enum and the list filter's). */
export const LIMIT_ORDER_STATUSES = statesOf(limitOrderMachine);

/** What the API says a canceled order was canceled for. */
export const CANCELLATION_REASONS = ["requested", "expired"] as const satisfies readonly CancellationReason[];

import { setup } from "xstate";
import { statesOf, type PersistedState, type StateOf } from "../../engine/machine-step";

/**
 * A webhook endpoint's life (seed: "Answering a delivery with 410 Gone disables it
 * permanently"; docs/decisions.md §4: `status` enabled|disabled with `disabled_reason`):
 *
 * - `enabled` receives deliveries;
 * - `disabled` by its owner (`disabled_reason: "manual"`) receives nothing until enabled again;
 * - `failing` by the engine after every delivery to it failed for the disable window
 *   (`config.webhookDisableAfterMs`, default 5 days; `status: "disabled"`,
 *   `disabled_reason: "failing"`) receives nothing until its owner enables it again;
 * - `gone` after a receiver answered 410 (`status: "disabled"`, `disabled_reason: "gone"`) is
 *   final: nothing enables it again; the owner registers a new endpoint.
 *
 * The machine only decides; the services persist the state in the endpoint's document.
 */
export type WebhookEndpointEvent = { type: "enable" } | { type: "disable" } | { type: "fail" } | { type: "gone" };

export const webhookEndpointMachine = setup({
  types: {
    context: {} as Record<string, never>,
    events: {} as WebhookEndpointEvent,
  },
}).createMachine({
  id: "webhook_endpoint",
  initial: "enabled",
  context: {},
  states: {
    enabled: { on: { disable: "disabled", fail: "failing", gone: "gone" } },
    disabled: { on: { enable: "enabled", gone: "gone" } },
    failing: { on: { enable: "enabled", gone: "gone" } },
    gone: { type: "final" },
  },
});

export type WebhookEndpointState = StateOf<typeof webhookEndpointMachine>;

/** The API's view of a machine state: `status` and why it is disabled. */
export function endpointStatus(state: WebhookEndpointState) {
  if (state === "enabled") return { status: "enabled", disabled_reason: null } as const;
  return { status: "disabled", disabled_reason: state === "disabled" ? "manual" : state } as const;
}

type EndpointView = ReturnType<typeof endpointStatus>;

/** Every `status` the API shows, from the machine's states (the API's enum and the update's). */
export const ENDPOINT_STATUSES = [...new Set(statesOf(webhookEndpointMachine).map((s) => endpointStatus(s).status))] as EndpointView["status"][];

/** Every `disabled_reason` the API shows, likewise. */
export const DISABLED_REASONS = [...new Set(statesOf(webhookEndpointMachine).flatMap((s) => endpointStatus(s).disabled_reason ?? []))] as NonNullable<
  EndpointView["disabled_reason"]
>[];

/** The machine state a stored endpoint is in, from its status and reason. */
export function endpointState(doc: { status: string; disabled_reason: string | null }): PersistedState<Record<string, never>, WebhookEndpointState> {
  const reason = doc.disabled_reason;
  const value: WebhookEndpointState = doc.status === "enabled" ? "enabled" : reason === "gone" || reason === "failing" ? reason : "disabled";
  return { value, context: {} };
}

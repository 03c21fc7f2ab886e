import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { startMachine, stepMachine } from "../../../src/engine/machine-step";
import {
  endpointState,
  endpointStatus,
  webhookEndpointMachine,
  type WebhookEndpointEvent,
  type WebhookEndpointState,
} from "../../../src/resources/webhook-endpoints/webhook-endpoint-machine";

const eventArb = fc.constantFrom<WebhookEndpointEvent>({ type: "enable" }, { type: "disable" }, { type: "fail" }, { type: "gone" });

/**
 * The reference: owners toggle enabled and disabled; the engine disables an enabled endpoint
 * that kept failing (only its owner enables it again); a 410 ends it for good.
 */
function model(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  if (state === "gone" || event.type === "gone") return "gone";
  if (event.type === "enable") return "enabled";
  if (state !== "enabled") return state;
  return event.type === "fail" ? "failing" : "disabled";
}

describe("the webhook endpoint machine", () => {
  test.prop([fc.array(eventArb, { maxLength: 30 })])(
    "agrees with the model after every event; gone absorbs everything; failing waits for its owner; the stored status round-trips",
    (events) => {
      let expected: WebhookEndpointState = "enabled";
      let state = startMachine(webhookEndpointMachine);
      expect(state.value).toBe("enabled");
      for (const event of events) {
        // services keep only status and disabled_reason: the next step starts from what they kept
        const stored = endpointStatus(state.value as WebhookEndpointState);
        state = stepMachine(webhookEndpointMachine, endpointState(stored), event);
        const before = expected;
        expected = model(expected, event);
        expect(state.value).toBe(expected);
        expect(state.moved).toBe(before !== expected);
        expect(state.done).toBe(expected === "gone");
        const shown = endpointStatus(expected);
        expect(shown.status === "enabled").toBe(expected === "enabled");
        expect(shown.disabled_reason).toBe({ enabled: null, disabled: "manual", failing: "failing", gone: "gone" }[expected]);
      }
    },
  );
});

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

const eventArb = fc.constantFrom<WebhookEndpointEvent>({ type: "enable" }, { type: "disable" }, { type: "gone" });

/** The reference: owners toggle enabled and disabled; a 410 ends it for good. */
function model(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  if (state === "gone" || event.type === "gone") return "gone";
  return event.type === "enable" ? "enabled" : "disabled";
}

describe("the webhook endpoint machine", () => {
  test.prop([fc.array(eventArb, { maxLength: 30 })])(
    "agrees with the model after every event; gone absorbs everything; the stored status round-trips",
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
        expect(shown.disabled_reason).toBe(expected === "gone" ? "gone" : expected === "disabled" ? "manual" : null);
      }
    },
  );
});

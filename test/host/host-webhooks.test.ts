import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { startHost } from "../../adapters/cli/host";
import { createMemoryStorage } from "../../adapters/memory";
import { TestReceiver } from "../support/receiver";

/** docs/decisions.md §8: `npm start` delivers webhooks in real time; PAYRAIL_ALLOW_PRIVATE_WEBHOOKS opens local receivers. */
describe("webhooks on the host server", () => {
  it("delivers a triggered event to a local receiver in real time when private receivers are allowed", async () => {
    const receiver = await TestReceiver.start();
    const host = await startHost({ port: 0, storage: createMemoryStorage(), allowPrivateWebhooks: true });
    try {
      const headers = { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json" };
      const created = await fetch(`${host.url}/v1/webhook_endpoints`, {
        method: "POST",
        headers,
        body: JSON.stringify({ url: receiver.url(), enabled_events: ["payout.settled"] }),
      });
      expect(created.status).toBe(200);
      const endpoint = await created.json();
      const triggered = await fetch(`${host.url}/v1/test_helpers/events/trigger`, {
        method: "POST",
        headers,
        body: JSON.stringify({ type: "payout.settled" }),
      });
      const event = await triggered.json();
      await receiver.received(1); // the background workers, woken by the commit
      const [req] = receiver.requests;
      expect(Stripe.webhooks.constructEvent(req!.body, req!.headers["service-signature"]!, endpoint.secret).id).toBe(event.id);
    } finally {
      await host.stop();
      await receiver.close();
    }
  });

  it("refuses plain-http receivers without the opt-in", async () => {
    const host = await startHost({ port: 0, storage: createMemoryStorage() });
    try {
      const res = await fetch(`${host.url}/v1/webhook_endpoints`, {
        method: "POST",
        headers: { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ url: "http://127.0.0.1:9/hooks", enabled_events: ["*"] }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: "parameter_invalid", param: "url" });
    } finally {
      await host.stop();
    }
  });
});

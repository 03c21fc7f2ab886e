import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { sinceOf } from "../../../adapters/cli/commands/webhook-endpoints";
import { engineDeps } from "../../../src/engine/engine";
import { runCli } from "../../support/cli";
import { TestReceiver } from "../../support/receiver";

/** Issue 25: `payrail events resend` and `payrail webhook_endpoints recover` against a running host. */
describe("payrail events resend and webhook_endpoints recover", () => {
  let host: RunningHost;
  let receiver: TestReceiver;
  let env: Record<string, string>;
  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), allowPrivateWebhooks: true, metrics: false });
    receiver = await TestReceiver.start();
    env = { PAYRAIL_URL: host.url, PAYRAIL_API_KEY: host.apiKey };
  });
  afterAll(async () => {
    await host.stop();
    await receiver.close();
  });

  const api = async (method: string, path: string, body?: unknown) =>
    (
      await fetch(`${host.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json" },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
    ).json() as Promise<any>;

  const received = async (count: number) => {
    for (let i = 0; i < 200 && receiver.requests.length < count; i++) await new Promise((r) => setTimeout(r, 25));
    return receiver.requests.map((r) => JSON.parse(r.body).id);
  };

  it("resends an event to an endpoint, logged with trigger manual; recover finds nothing failed", async () => {
    const ep = await api("POST", "/v1/webhook_endpoints", { url: receiver.url(), enabled_events: ["payout.settled"] });
    const event = await api("POST", "/v1/test_helpers/events/trigger", { type: "payout.settled" });
    expect(await received(1)).toEqual([event.id]);

    const run = runCli(["events", "resend", event.id, "--endpoint", ep.id], env);
    expect(await run.done, run.stderr).toBe(0);
    expect(run.stdout).toBe(`queued ${event.id} for ${ep.id}\n`);
    expect(await received(2)).toEqual([event.id, event.id]);
    const log = await api("GET", `/v1/webhook_endpoints/${ep.id}/deliveries?event=${event.id}`);
    expect(log.data.map((d: any) => d.trigger).sort()).toEqual(["manual", "scheduled"]);

    // deliveries tail --event follows one event's attempts: the next resend of it shows, another event's delivery does not
    const tail = runCli(["deliveries", "tail", ep.id, "--event", event.id, "--json", "--interval", "100"], env);
    try {
      await new Promise((r) => setTimeout(r, 500)); // the tail starts from the host's clock now
      const other = await api("POST", "/v1/test_helpers/events/trigger", { type: "payout.settled" });
      expect(await received(3)).toContain(other.id);
      expect(await runCli(["events", "resend", event.id, "--endpoint", ep.id], env).done).toBe(0);
      await tail.waitFor(new RegExp(`"event":"${event.id}".*"trigger":"manual"`), 10_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(tail.stdout).not.toContain(other.id);
    } finally {
      expect(await tail.stop()).toBe(0);
    }

    const recover = runCli(["webhook_endpoints", "recover", ep.id, "--since", "1d", "--json"], env);
    expect(await recover.done, recover.stderr).toBe(0);
    expect(JSON.parse(recover.stdout)).toMatchObject({ object: "webhook_recovery", endpoint: ep.id, event_count: 0 });
  });

  it("reports the API's error and exits non-zero", async () => {
    const ep = await api("POST", "/v1/webhook_endpoints", { url: receiver.url(), enabled_events: ["*"] });
    const run = runCli(["events", "resend", "evt_nope", "--endpoint", ep.id], env);
    expect(await run.done).not.toBe(0);
    expect(run.stderr).toContain("resource_missing");
    const old = runCli(["webhook_endpoints", "recover", ep.id, "--since", "30d"], env);
    expect(await old.done).not.toBe(0);
    expect(old.stderr).toContain("replay_window_exceeded");
  });

  it("serve takes the disable window from PAYRAIL_WEBHOOK_DISABLE_AFTER_SECONDS, and refuses one that is not whole seconds", async () => {
    const bad = runCli(["serve"], { PAYRAIL_WEBHOOK_DISABLE_AFTER_SECONDS: "1.5", LOG_LEVEL: "silent" });
    expect(await bad.done).toBe(2);
    expect(bad.stderr).toContain("PAYRAIL_WEBHOOK_DISABLE_AFTER_SECONDS must be a whole number of seconds");
    const other = await startHost({ port: 0, storage: createMemoryStorage(), metrics: false, webhookDisableAfterMs: 60_000 });
    try {
      expect(engineDeps(other.engine).config.webhookDisableAfterMs).toBe(60_000);
      expect(engineDeps(host.engine).config.webhookDisableAfterMs).toBe(5 * 24 * 3_600_000);
    } finally {
      await other.stop();
    }
  });

  it("takes --since as a moment the API reads, or a span back from the host's clock", async () => {
    const now = async () => Date.parse("2026-03-10T12:00:00Z");
    expect(await sinceOf("2d", now)).toBe("2026-03-08T12:00:00.000Z");
    expect(await sinceOf("90m", now)).toBe("2026-03-10T10:30:00.000Z");
    expect(await sinceOf("2026-03-01", now)).toBe("2026-03-01");
    expect(await sinceOf("1767225600", now)).toBe("1767225600");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { eventually, runCli } from "../../support/cli";
import { TestReceiver, ok, status } from "../../support/receiver";

/** Issue 13: `events tail` and `deliveries tail` against a running host. */
describe("payrail events tail and deliveries tail", () => {
  let host: RunningHost;
  let env: Record<string, string>;
  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), allowPrivateWebhooks: true, metrics: false });
    env = { PAYRAIL_URL: host.url, PAYRAIL_API_KEY: host.apiKey };
  });
  afterAll(() => host.stop());

  const post = (path: string, body: unknown) =>
    fetch(`${host.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<any>);
  const lines = (text: string) =>
    text
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));

  it("events tail prints only new events of the asked types, oldest first, one JSON envelope per line", async () => {
    await post("/v1/test_helpers/events/trigger", { type: "payout.settled" }); // before the tail: not shown
    const run = runCli(["events", "tail", "--type", "payout.settled,swap.failed", "--json"], env);
    try {
      await new Promise((r) => setTimeout(r, 300)); // the tail has learnt where it starts
      const a = await post("/v1/test_helpers/events/trigger", { type: "swap.failed" });
      await post("/v1/test_helpers/events/trigger", { type: "balance.updated" });
      const b = await post("/v1/test_helpers/events/trigger", { type: "payout.settled" });
      await eventually(() => run.stdout.includes(b.id), 15_000, "the second event");
      expect(lines(run.stdout).map((e) => e.id)).toEqual([a.id, b.id]);
      expect(lines(run.stdout)[0]).toMatchObject({ object: "event", type: "swap.failed" });
    } finally {
      expect(await run.stop()).toBe(0);
    }
    expect(run.stderr).toBe("");
  });

  it("deliveries tail shows each attempt with its status, latency and next attempt", async () => {
    const receiver = await TestReceiver.start();
    receiver.behave = (_req, i) => (i === 0 ? ok : status(500));
    try {
      const endpoint = await post("/v1/webhook_endpoints", { url: receiver.url(), enabled_events: ["swap.settled"] });
      const run = runCli(["deliveries", "tail", endpoint.id], env);
      const json = runCli(["deliveries", "tail", endpoint.id, "--json", "--interval", "200"], env);
      try {
        await run.waitFor(/tailing the deliveries of we_/);
        await new Promise((r) => setTimeout(r, 300));
        const first = await post("/v1/test_helpers/events/trigger", { type: "swap.settled" });
        await receiver.received(1);
        const second = await post("/v1/test_helpers/events/trigger", { type: "swap.settled" });
        await run.waitFor(new RegExp(`✖ 500 .*swap\\.settled +${second.id} +attempt 1 \\(scheduled\\) +HTTP 500 +next attempt \\d\\d:`));
        expect(run.stdout).toMatch(new RegExp(`✔ 200 +\\d+ ms +swap\\.settled +${first.id} +attempt 1 \\(scheduled\\)`));
        await eventually(() => lines(json.stdout).length === 2, 15_000, "two JSON lines");
        expect(lines(json.stdout).map((d) => [d.event, d.status, d.response_status])).toEqual([
          [first.id, "succeeded", 200],
          [second.id, "failed", 500],
        ]);
      } finally {
        expect(await run.stop()).toBe(0);
        expect(await json.stop()).toBe(0);
      }
    } finally {
      await receiver.close();
    }
  });

  it("deliveries tail of an endpoint that does not exist fails with the API's error", async () => {
    const run = runCli(["deliveries", "tail", "we_nope"], env);
    expect(await run.done).toBe(1);
    expect(run.stderr).toMatch(/^payrail: No such webhook endpoint.*\(resource_missing.*req_/);
  });
});

import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { verifyWebhookSignature } from "../../../src/events/signing";
import { eventually, exited, runCli, spawnCli } from "../../support/cli";
import { TestReceiver, ok, status, type ReceivedRequest } from "../../support/receiver";

/** Issue 13: `payrail listen` against a running host, in both modes. */
describe("payrail listen", () => {
  let host: RunningHost;
  let api: (method: string, path: string, body?: unknown) => Promise<any>;
  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), allowPrivateWebhooks: true, metrics: false });
    api = async (method, path, body) => {
      const res = await fetch(`${host.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json", "idempotency-key": `k-${Math.random()}` },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { ...(await res.json()), http: res.status };
    };
  });
  afterAll(() => host.stop());

  const trigger = (type: string, overrides: Record<string, string>) => api("POST", "/v1/test_helpers/events/trigger", { type, overrides });
  const events = (r: TestReceiver) => r.requests.map((q) => ({ ...JSON.parse(q.body), answered: q.answered, attempt: q.headers["service-attempt"] }));
  /** The resource an event is ordered under, as listen orders it. */
  const resource = (e: any) => (e.data.object.object === "payout_leg" ? e.data.object.payout : e.data.object.id);

  /** Per resource, the events in the order the receiver acknowledged them must be in event order. */
  function expectOrderedPerResource(acked: any[]) {
    const byResource = new Map<string, string[]>();
    for (const e of acked) byResource.set(resource(e), [...(byResource.get(resource(e)) ?? []), e.id]);
    for (const ids of byResource.values()) expect(ids).toEqual([...ids].sort());
  }

  function expectSignedWith(requests: ReceivedRequest[], secret: string) {
    for (const req of requests) {
      expect(verifyWebhookSignature(req.body, req.headers["service-signature"], secret, { now: Date.now() })).toMatchObject({ valid: true });
      expect(Stripe.webhooks.constructEvent(req.body, req.headers["service-signature"]!, secret).id).toBe(JSON.parse(req.body).id);
    }
  }

  it("push: forwards through a temporary endpoint in order per resource, retries a failure, and removes the endpoint on exit", async () => {
    const receiver = await TestReceiver.start();
    let failed = false;
    receiver.behave = (req) => {
      if (JSON.parse(req.body).type === "payout.leg.broadcast" && !failed) {
        failed = true;
        return status(500);
      }
      return ok;
    };
    const run = runCli(["listen", "--forward-to", receiver.url(), "--url", host.url, "--api-key", host.apiKey]);
    try {
      const [, secret] = await run.waitFor(/signing secret is (whsec_[A-Za-z0-9_-]+)/);
      const [, endpointId] = await run.waitFor(/temporary endpoint (we_[0-9a-z]+)/);
      expect((await api("GET", `/v1/webhook_endpoints/${endpointId}`)).http).toBe(200);

      const a1 = await trigger("payout.created", { id: "po_a" });
      const b1 = await trigger("payout.created", { id: "po_b" });
      const a2 = await trigger("payout.leg.broadcast", { payout: "po_a" });
      // the leg event fails once and waits for its retry; po_a's next event must wait behind it
      await run.waitFor(/payout\.leg\.broadcast.*500.*attempt 2 in/);
      const b2 = await trigger("payout.settled", { id: "po_b" });
      const a3 = await trigger("payout.settled", { id: "po_a" });
      await receiver.received(6);
      await run.waitFor(/payout\.settled +evt_\w+ +po_a +200/);

      const got = events(receiver);
      const acked = got.filter((e) => e.answered === "200");
      expect(acked.map((e) => e.id).sort()).toEqual([a1, b1, a2, b2, a3].map((e) => e.id).sort());
      expectOrderedPerResource(acked);
      // po_a: created, the leg refused, the leg again (attempt 2), then settled
      expect(got.filter((e) => resource(e) === "po_a").map((e) => [e.type, e.answered, e.attempt])).toEqual([
        ["payout.created", "200", "1"],
        ["payout.leg.broadcast", "500", "1"],
        ["payout.leg.broadcast", "200", "2"],
        ["payout.settled", "200", "1"],
      ]);
      expectSignedWith(receiver.requests, secret!);
      expect(receiver.requests.every((r) => r.headers["service-delivery"]?.startsWith("dlv_"))).toBe(true);
      expect(run.stdout).toMatch(/payout\.leg\.broadcast.*200.*\(attempt 2\)/);
    } finally {
      expect(await run.stop()).toBe(0);
      await receiver.close();
    }
    expect(run.stderr).toMatch(/forwarded 5, gave up on 0; removed we_/);
    expect((await api("GET", "/v1/webhook_endpoints")).data).toEqual([]);
  });

  it("poll: long-polls the events API, keeps a real payout's events in order, signs with the printed secret, registers nothing", async () => {
    const receiver = await TestReceiver.start();
    const run = runCli(
      ["listen", "--mode", "poll", "--forward-to", receiver.url(), "--events", "payout.created,payout.leg.broadcast,payout.settled", "--json"],
      {
        PAYRAIL_URL: host.url,
        PAYRAIL_API_KEY: host.apiKey,
      },
    );
    try {
      const [, secret] = await run.waitFor(/signing secret is (whsec_[A-Za-z0-9_-]+)/);
      expect(run.stderr).toMatch(/long-polling/);
      expect((await api("GET", "/v1/webhook_endpoints")).data).toEqual([]);
      const recipient = await api("POST", "/v1/recipients", { name: "Listen", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } });
      const payout = await api("POST", "/v1/payouts", { amount: "12", asset: "USDC", recipient: recipient.id });
      expect(payout.status).toBe("executing");
      const other = await trigger("payout.settled", { id: "po_other" });
      // the simulated chain makes the leg final within about five seconds
      await eventually(() => events(receiver).some((e) => e.type === "payout.settled" && e.data.object.id === payout.id), 20_000, "payout.settled");
      const got = events(receiver);
      expect(got.every((e) => e.answered === "200")).toBe(true);
      expect(got.filter((e) => resource(e) === payout.id).map((e) => e.type)).toEqual([
        "payout.created",
        ...payout.legs.map(() => "payout.leg.broadcast"),
        "payout.settled",
      ]);
      expect(got.some((e) => e.id === other.id)).toBe(true);
      expect(got.some((e) => e.type === "balance.updated")).toBe(false); // --events filters
      expectOrderedPerResource(got);
      expectSignedWith(receiver.requests, secret!);
      // --json: one object per attempt
      const lines = run.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines.every((l) => l.outcome === "delivered" && l.status === 200 && typeof l.latency_ms === "number")).toBe(true);
    } finally {
      expect(await run.stop()).toBe(0);
      await receiver.close();
    }
  });

  it("the binary removes its endpoint on SIGINT, and a later run removes the endpoint of one killed hard", async () => {
    const receiver = await TestReceiver.start();
    const env = { PAYRAIL_API_KEY: host.apiKey, PAYRAIL_URL: host.url, NO_COLOR: "1" };
    const children: ReturnType<typeof spawnCli>[] = [];
    try {
      const child = spawnCli(["listen", "--forward-to", receiver.url()], env);
      children.push(child);
      const endpointId = (await eventually(() => /temporary endpoint (we_[0-9a-z]+)/.exec(child.output()), 30_000, "listen to start"))[1];
      await trigger("swap.settled", {});
      await receiver.received(1);
      child.kill("SIGINT");
      expect(await exited(child)).toBe(0);
      expect((await api("GET", `/v1/webhook_endpoints/${endpointId}`)).http).toBe(404);

      const killed = spawnCli(["listen", "--forward-to", receiver.url()], env);
      children.push(killed);
      const leftId = (await eventually(() => /temporary endpoint (we_[0-9a-z]+)/.exec(killed.output()), 30_000, "listen to start"))[1];
      killed.kill("SIGKILL");
      await exited(killed);
      expect((await api("GET", `/v1/webhook_endpoints/${leftId}`)).http).toBe(200);
      const next = runCli(["listen", "--forward-to", receiver.url()], env);
      await next.waitFor(/Ready!/);
      expect(next.stderr).toContain(`removed ${leftId}, left behind by a listen that was killed`);
      expect(await next.stop()).toBe(0);
      expect((await api("GET", "/v1/webhook_endpoints")).data).toEqual([]);
    } finally {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
      await receiver.close();
    }
  });

  it("refuses a bad --forward-to and a missing API key with a usage error", async () => {
    const bad = runCli(["listen", "--forward-to", "not a url", "--api-key", host.apiKey]);
    expect(await bad.done).toBe(2);
    expect(bad.stderr).toMatch(/--forward-to must be a URL/);
    const keyless = runCli(["listen", "--forward-to", "http://127.0.0.1:9/"]);
    expect(await keyless.done).toBe(2);
    expect(keyless.stderr).toMatch(/an API key is needed/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { DEFAULT_CATALOGUE } from "../../../src/modules";

const EVENT_TYPES = DEFAULT_CATALOGUE.eventTypes;
import { runCli } from "../../support/cli";

/** Issue 13: `payrail trigger` for every type of the catalogue, with overrides. */
describe("payrail trigger", () => {
  let host: RunningHost;
  let env: Record<string, string>;
  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), metrics: false });
    env = { PAYRAIL_URL: host.url, PAYRAIL_API_KEY: host.apiKey };
  });
  afterAll(() => host.stop());

  const stored = async (id: string) =>
    (await fetch(`${host.url}/v1/events/${id}`, { headers: { authorization: `Bearer ${host.apiKey}` } })).json() as Promise<any>;

  it("emits an event of every catalogue type about a sample object", async () => {
    for (const type of EVENT_TYPES) {
      const run = runCli(["trigger", type, "--sample", "--json"], env);
      expect(await run.done, run.stderr).toBe(0);
      const event = JSON.parse(run.stdout);
      expect(event).toMatchObject({ object: "event", type, livemode: false });
      expect(event.data.object.sample).toBe(true);
      expect((await stored(event.id)).type).toBe(type);
    }
  });

  it("prints one line naming the event and its resource", async () => {
    const run = runCli(["trigger", "payment_intent.succeeded", "--sample"], env);
    expect(await run.done).toBe(0);
    expect(run.stdout).toMatch(/^triggered payment_intent\.succeeded evt_[0-9a-z]+ about pi_[0-9a-z]+\n$/);
  });

  it("sets fields with --override, each taking the type of the field it replaces", async () => {
    const run = runCli(
      [
        "trigger",
        "payout.settled",
        "--sample",
        "--json",
        "--override",
        "id=po_mine",
        "--override",
        "amount=42.5",
        "--override",
        "legs.0.confirmations=9",
        "--override",
        "reference=null",
      ],
      env,
    );
    expect(await run.done, run.stderr).toBe(0);
    const object = JSON.parse(run.stdout).data.object;
    expect(object).toMatchObject({ id: "po_mine", amount: "42.5", reference: null });
    expect(object.legs[0].confirmations).toBe(9);
    expect((await stored(JSON.parse(run.stdout).id)).data.object.id).toBe("po_mine");
  });

  it("refuses an unknown type, a field the sample lacks, a value of the wrong type, and a malformed override, emitting nothing", async () => {
    const before = (await (await fetch(`${host.url}/v1/events?limit=200`, { headers: { authorization: `Bearer ${host.apiKey}` } })).json()).data.length;
    const unknown = runCli(["trigger", "payout.setled"], env);
    expect(await unknown.done).toBe(2);
    expect(unknown.stderr).toMatch(/payout\.setled is not an event type; did you mean .*payout\.settled/);
    const missing = runCli(["trigger", "payout.settled", "--sample", "--override", "amout=1"], env);
    expect(await missing.done).toBe(1);
    expect(missing.stderr).toMatch(/The sample object has no field amout \(parameter_invalid, param overrides\.amout, req_/);
    const typed = runCli(["trigger", "payout.settled", "--sample", "--override", "legs.0.confirmations=many"], env);
    expect(await typed.done).toBe(1);
    expect(typed.stderr).toMatch(/legs\.0\.confirmations takes a number/);
    const malformed = runCli(["trigger", "payout.settled", "--override", "amount"], env);
    expect(await malformed.done).toBe(2);
    expect(malformed.stderr).toMatch(/--override takes path=value/);
    const after = (await (await fetch(`${host.url}/v1/events?limit=200`, { headers: { authorization: `Bearer ${host.apiKey}` } })).json()).data.length;
    expect(after).toBe(before);
  });

  it("lists every type in its help", async () => {
    const run = runCli(["trigger", "--help"], env);
    expect(await run.done).toBe(0);
    for (const type of EVENT_TYPES) expect(run.stdout).toContain(`  ${type}\n`);
  });
});

import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_FIXTURES } from "../../../adapters/cli/fixtures/builtin";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { eventually, runCli } from "../../support/cli";
import { TestReceiver } from "../../support/receiver";

/** `${step:path}` of a fixture. */
const ref = (step: string, path: string) => `\${${step}:${path}}`;

/** Issue 25 item 6: listen's secret per host and profile, fixtures, test helpers, any API call, logs tail, profiles, completion, exit codes. */
describe("payrail CLI tools", () => {
  let host: RunningHost;
  let dir: string;
  /** A config file of its own for each test that reads or writes one. */
  const configFile = (name: string) => join(dir, `${name}.json`);
  let env: Record<string, string>;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${host.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json", "idempotency-key": `k-${Math.random()}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { ...((await res.json()) as any), http: res.status };
  };
  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), allowPrivateWebhooks: true, metrics: false });
    dir = mkdtempSync(join(tmpdir(), "payrail-cli-tools-"));
    env = { PAYRAIL_URL: host.url, PAYRAIL_API_KEY: host.apiKey, PAYRAIL_CONFIG: configFile("shared") };
  });
  afterAll(() => host.stop());

  it("listen prints the same secret on every run for a host and profile, another for another profile or host, and push mode registers its endpoint with it", async () => {
    const cfg = { ...env, PAYRAIL_CONFIG: configFile("listen") };
    const print = async (...extra: string[]) => {
      const run = runCli(["listen", "--print-secret", ...extra], cfg);
      expect(await run.done, run.stderr).toBe(0);
      return run.stdout.trim();
    };
    const first = await print();
    expect(first).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await print()).toBe(first);
    const other = await print("--profile", "ci");
    expect(other).not.toBe(first);
    expect(await print("--profile", "ci")).toBe(other);
    expect(await print("--url", "http://127.0.0.1:1")).not.toBe(first);
    expect(statSync(configFile("listen")).mode & 0o077).toBe(0);

    const receiver = await TestReceiver.start();
    const run = runCli(["listen", "--forward-to", receiver.url()], cfg);
    try {
      const [, secret] = await run.waitFor(/signing secret is (whsec_[A-Za-z0-9_-]+)/);
      expect(secret).toBe(first);
      const [, endpoint] = await run.waitFor(/temporary endpoint (we_[0-9a-z]+)/);
      expect((await api("GET", `/v1/webhook_endpoints/${endpoint}`)).http).toBe(200);
    } finally {
      expect(await run.stop()).toBe(0);
      await receiver.close();
    }
  });

  it("a webhook endpoint takes a supplied whsec_ secret and refuses a malformed one, creating nothing", async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const made = await api("POST", "/v1/webhook_endpoints", { url: "https://example.com/hooks", enabled_events: ["*"], secret });
    expect(made).toMatchObject({ http: 200, secret });
    const before = (await api("GET", "/v1/webhook_endpoints")).data.length;
    for (const bad of ["whsec_short", "sk_test_abcdefabcdefabcdefabcdefabcdefabcdef", `whsec_${"*".repeat(40)}`]) {
      const refused = await api("POST", "/v1/webhook_endpoints", { url: "https://example.com/hooks", enabled_events: ["*"], secret: bad });
      expect(refused).toMatchObject({ http: 400, error: { code: "parameter_invalid", param: "secret" } });
    }
    expect((await api("GET", "/v1/webhook_endpoints")).data.length).toBe(before);
    await api("DELETE", `/v1/webhook_endpoints/${made.id}`);
  });

  it("trigger payout.settled leaves a payout retrievable in status settled, with --override", async () => {
    const run = runCli(["trigger", "payout.settled", "--override", "amount=7.5", "--override", "recipient:name=Fixture Ada", "--json"], env);
    expect(await run.done, run.stderr).toBe(0);
    const steps = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(steps.map((s) => s.step)).toEqual(["fund", "recipient", "payout", "settled"]);
    const payout = await api("GET", `/v1/payouts/${steps[2].answer.id}`);
    expect(payout).toMatchObject({ http: 200, status: "settled", amount: "7.5", recipient: steps[1].answer.id });
    expect((await api("GET", `/v1/recipients/${payout.recipient}`)).name).toBe("Fixture Ada");
  });

  it("every built-in fixture causes a real event of its type (not a sample)", async () => {
    for (const type of Object.keys(BUILTIN_FIXTURES)) {
      const since = new Date(Date.now() - 1000).toISOString();
      const run = runCli(["trigger", type], env);
      expect(await run.done, `${type}: ${run.stderr}`).toBe(0);
      let event: any;
      for (let i = 0; i < 100 && !event; i++) {
        event = (await api("GET", `/v1/events?type=${type}&created_gte=${since}&limit=1`)).data[0];
        if (!event) await new Promise((r) => setTimeout(r, 100));
      }
      expect(event, `an event ${type}`).toBeDefined();
      expect(event.data.object.sample, type).toBeUndefined();
    }
  });

  it("trigger --fixture runs a file with references; a bad override or file is a usage error and runs nothing", async () => {
    const file = join(dir, "fixture.json");
    writeFileSync(
      file,
      JSON.stringify({
        _meta: { template_version: 0 },
        fixtures: [
          {
            name: "who",
            path: "/v1/recipients",
            params: { name: ref(".env", "WHO"), chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } },
          },
          { name: "again", path: `/v1/recipients/${ref("who", "id")}`, method: "get" },
          {
            name: "renamed",
            path: `/v1/recipients/${ref("again", "id")}`,
            params: { name: `${ref("who", "name")} the second`, metadata: { of: ref("who", "id") } },
          },
        ],
      }),
    );
    const run = runCli(["trigger", "--fixture", file, "--override", "who:metadata.tag=x", "--json"], { ...env, WHO: "Grace" });
    expect(await run.done, run.stderr).toBe(0);
    const [who, , renamed] = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).answer);
    expect(who).toMatchObject({ name: "Grace", metadata: { tag: "x" } });
    expect(renamed).toMatchObject({ id: who.id, name: "Grace the second", metadata: { of: who.id, tag: "x" } });

    const count = async () => (await api("GET", "/v1/recipients?limit=200")).data.length;
    const before = await count();
    const unknownStep = runCli(["trigger", "payout.created", "--override", "nope:amount=1"], env);
    expect(await unknownStep.done).toBe(2);
    expect(unknownStep.stderr).toMatch(/the fixture has no step nope/);
    writeFileSync(file, JSON.stringify({ fixtures: [{ name: "x", path: "v1/recipients" }] }));
    const badFile = runCli(["trigger", "--fixture", file], env);
    expect(await badFile.done).toBe(2);
    expect(badFile.stderr).toMatch(/is not a fixture: fixtures\[0\]\.path/);
    expect(await count()).toBe(before);
  });

  it("get, post and delete call any path; test fund credits exactly the amount", async () => {
    const made = runCli(
      ["post", "/v1/recipients", "-d", "name=Cli", "-d", "chain_addresses.base=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "-d", "screening:=false"],
      env,
    );
    expect(await made.done, made.stderr).toBe(0);
    const recipient = JSON.parse(made.stdout);
    expect(recipient).toMatchObject({ object: "recipient", name: "Cli", screening: false });
    const got = runCli(["get", `recipients/${recipient.id}`, "--compact"], env);
    expect(await got.done).toBe(0);
    expect(JSON.parse(got.stdout).id).toBe(recipient.id);
    const deleted = runCli(["delete", `/v1/recipients/${recipient.id}`], env);
    expect(await deleted.done, deleted.stderr).toBe(0);
    const gone = runCli(["get", `/v1/recipients/${recipient.id}`], env);
    expect(await gone.done).toBe(1);
    expect(gone.stderr).toMatch(/\(resource_missing, .*req_/);

    const usdc = async () => (await api("GET", "/v1/balances")).data.find((b: any) => b.asset === "USDC").chains.polygon.available as string;
    const before = await usdc();
    const fund = runCli(["test", "fund", "12.5", "USDC", "--chain", "polygon", "--json"], env);
    expect(await fund.done, fund.stderr).toBe(0);
    expect(Number(await usdc()) - Number(before)).toBe(12.5);
    const bad = runCli(["test", "advance", "base", "--blocks", "-1"], env);
    expect(await bad.done).toBe(2);
  });

  it("logs tail prints the requests matching --status and --path as they are answered", async () => {
    const run = runCli(["logs", "tail", "--status", "4xx", "--path", "/v1/payouts", "--json", "--interval", "100"], env);
    try {
      await new Promise((r) => setTimeout(r, 300)); // the tail has learnt where it starts
      await api("GET", "/v1/payouts/po_missing");
      await api("GET", "/v1/payouts?limit=1");
      await api("GET", "/v1/recipients/rcp_missing");
      await eventually(() => run.stdout.includes("po_missing"), 10_000, "the 404");
      await new Promise((r) => setTimeout(r, 300));
      const lines = run.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines).toEqual([
        expect.objectContaining({ object: "request_log", method: "GET", path: "/v1/payouts/po_missing", status: 404, error_code: "resource_missing" }),
      ]);
      expect(lines[0].id).toMatch(/^req_/);
    } finally {
      expect(await run.stop()).toBe(0);
    }
    const badStatus = runCli(["logs", "tail", "--status", "4x"], env);
    expect(await badStatus.done).toBe(2);
  });

  it("the request log pages under the list contract and is for full-access keys only", async () => {
    for (const id of ["po_a1", "po_a2", "po_a3"]) await api("GET", `/v1/payouts/${id}`);
    const first = await api("GET", "/v1/request_logs?path=/v1/payouts/po_a&limit=2");
    expect(first.data.map((r: any) => r.path)).toEqual(["/v1/payouts/po_a3", "/v1/payouts/po_a2"]);
    expect(first).toMatchObject({ object: "list", has_more: true, previous_cursor: null });
    const second = await api("GET", `/v1/request_logs?path=/v1/payouts/po_a&limit=2&starting_after=${first.next_cursor}`);
    expect(second.data.map((r: any) => r.path)).toEqual(["/v1/payouts/po_a1"]);
    expect(second.has_more).toBe(false);
    const back = await api("GET", `/v1/request_logs?path=/v1/payouts/po_a&limit=2&ending_before=${second.previous_cursor}`);
    expect(back.data.map((r: any) => r.path)).toEqual(["/v1/payouts/po_a3", "/v1/payouts/po_a2"]);
    // a cursor is bound to its filters
    expect((await api("GET", `/v1/request_logs?path=/v1/x&starting_after=${first.next_cursor}`)).error.code).toBe("cursor_invalid");
    expect((await api("GET", "/v1/request_logs?status=4x")).error).toMatchObject({ code: "parameter_invalid", param: "status" });
    const restricted = await api("POST", "/v1/api_keys", { scopes: ["payouts:read"] });
    const res = await fetch(`${host.url}/v1/request_logs`, { headers: { authorization: `Bearer ${restricted.secret}` } });
    expect(res.status).toBe(403);
  });

  it("profiles: config set/get/list, a profile's host and key used by every command, the option and the environment first", async () => {
    const cfg = { PAYRAIL_CONFIG: configFile("profiles") };
    for (const [k, v] of [
      ["url", host.url],
      ["api_key", host.apiKey],
    ]) {
      const set = runCli(["config", "set", k!, v!, "--profile", "local"], cfg);
      expect(await set.done, set.stderr).toBe(0);
    }
    const got = runCli(["config", "get", "url", "--profile", "local"], cfg);
    expect(await got.done).toBe(0);
    expect(got.stdout).toBe(`${host.url}\n`);
    const list = runCli(["config", "list"], cfg);
    expect(await list.done).toBe(0);
    expect(list.stdout).toContain(`[local]\n  url = ${host.url}\n  api_key = sk_test_…${host.apiKey.slice(-4)}\n`);
    expect(list.stdout).not.toContain(host.apiKey);
    expect(JSON.parse(readFileSync(configFile("profiles"), "utf8")).profiles.local.api_key).toBe(host.apiKey);

    const balances = runCli(["get", "/v1/balances", "--profile", "local", "--compact"], cfg);
    expect(await balances.done, balances.stderr).toBe(0);
    expect(JSON.parse(balances.stdout).object).toBe("list");
    const viaEnv = runCli(["get", "/v1/balances"], { ...cfg, PAYRAIL_PROFILE: "local", PAYRAIL_API_KEY: "sk_test_wrongwrongwrongwrong" });
    expect(await viaEnv.done).toBe(1);
    expect(viaEnv.stderr).toMatch(/api_key_invalid/);
    const noKey = runCli(["get", "/v1/balances"], cfg);
    expect(await noKey.done).toBe(2);
    const unknown = runCli(["config", "set", "colour", "red"], cfg);
    expect(await unknown.done).toBe(2);
    const unset = runCli(["config", "get", "api_key"], cfg);
    expect(await unset.done).toBe(1);
  });

  it("completion scripts name every command; usage errors exit 2, API errors 1, --version 0", async () => {
    const bash = runCli(["completion", "bash"]);
    expect(await bash.done).toBe(0);
    for (const word of ["listen", "trigger", "logs", "test", "config", "completion", "--print-secret", "payout.settled"]) expect(bash.stdout).toContain(word);
    const fish = runCli(["completion", "fish"]);
    expect(await fish.done).toBe(0);
    expect(fish.stdout).toContain("complete -c payrail -n '__fish_seen_subcommand_from logs' -a 'tail'");
    expect(await runCli(["completion", "tcsh"]).done).toBe(2);
    expect(await runCli(["nonsense"]).done).toBe(2);
    expect(await runCli(["get"], env).done).toBe(2);
    expect(await runCli(["listen"], env).done).toBe(2);
    expect(await runCli(["--version"]).done).toBe(0);
    expect(await runCli(["post", "/v1/payouts", "-d", "amount=1"], env).done).toBe(1);
  });
});

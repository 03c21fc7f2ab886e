import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { runCli } from "../../support/cli";

/** `payrail keys create|list|roll|revoke` against a running host, over its HTTP API. */
describe("payrail keys", () => {
  let host: RunningHost;
  let env: Record<string, string>;
  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), metrics: false });
    env = { PAYRAIL_URL: host.url, PAYRAIL_API_KEY: host.apiKey };
  });
  afterAll(() => host.stop());

  const status = async (key: string) => (await fetch(`${host.url}/v1/balances`, { headers: { authorization: `Bearer ${key}` } })).status;
  const cli = async (argv: string[], extra: Record<string, string> = {}) => {
    const run = runCli(argv, { ...env, ...extra });
    const code = await run.done;
    return { code, stdout: run.stdout, stderr: run.stderr };
  };

  it("creates a key printed once on standard output, lists it by its last 4 characters, rolls and revokes it", async () => {
    const created = await cli(["keys", "create", "--name", "deploy", "--scope", "balances:read"]);
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^sk_test_[A-Za-z0-9_-]{16,}$/);
    expect(created.stderr).toMatch(/created key_[0-9a-z]+ \(balances:read\); the key, shown this once/);
    expect(await status(secret)).toBe(200);

    const listed = await cli(["keys", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(secret);
    const row = listed.stdout.split("\n").find((l) => l.includes("deploy"))!;
    expect(row).toMatch(new RegExp(`^(key_[0-9a-z]+)  …${secret.slice(-4)}  active +balances:read +deploy$`));
    const id = /^(key_[0-9a-z]+)/.exec(row)![1]!;

    const rolled = await cli(["keys", "roll", id, "--grace", "3600", "--json"]);
    expect(rolled.code, rolled.stderr).toBe(0);
    const next = JSON.parse(rolled.stdout);
    expect(next).toMatchObject({ object: "api_key", name: "deploy", scopes: ["balances:read"], status: "active" });
    expect(await status(next.secret)).toBe(200);
    expect(await status(secret)).toBe(200); // within its hour of grace
    const json = (await cli(["keys", "list", "--json"])).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(json.find((k) => k.id === id)).toMatchObject({ status: "active", last4: secret.slice(-4) });
    expect(json.find((k) => k.id === id).expires_at).not.toBeNull();
    expect(json.every((k) => !("secret" in k))).toBe(true);

    const revoked = await cli(["keys", "revoke", id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^${id}  …${secret.slice(-4)}  revoked`));
    expect(await status(secret)).toBe(401);
    expect(await status(next.secret)).toBe(200);
  });

  it("reports refusals: a restricted key cannot manage keys, an unknown id, a bad scope or grace", async () => {
    const restricted = (await cli(["keys", "create", "--scope", "payouts:read"])).stdout.trim();
    const denied = await cli(["keys", "list"], { PAYRAIL_API_KEY: restricted });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/Only a full-access API key .* \(permission_denied, req_/);
    const unknown = await cli(["keys", "revoke", "key_00000000000000000000000000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No such API key: key_0+ \(resource_missing, param id, req_/);
    const scope = await cli(["keys", "create", "--scope", "payouts:delete"]);
    expect(scope.code).toBe(1);
    expect(scope.stderr).toMatch(/scopes\[0\] must be one of .*\(parameter_invalid, param scopes\[0\]/);
    const grace = await cli(["keys", "roll", "key_x", "--grace", "soon"]);
    expect(grace.code).toBe(2);
    expect(grace.stderr).toMatch(/--grace takes a whole number of seconds/);
  });
});

describe("the host's demo key", () => {
  it("is replaced at the next start once revoked over the API, not printed again", async () => {
    const storage = createMemoryStorage();
    const first = await startHost({ port: 0, storage, metrics: false });
    const revoke = async () => {
      const run = runCli(["keys", "list", "--json"], { PAYRAIL_URL: first.url, PAYRAIL_API_KEY: first.apiKey });
      expect(await run.done).toBe(0);
      const own = run.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .find((k) => k.last4 === first.apiKey.slice(-4));
      expect(await runCli(["keys", "revoke", own.id], { PAYRAIL_URL: first.url, PAYRAIL_API_KEY: first.apiKey }).done).toBe(0);
    };
    const again = await startHost({ port: 0, storage, metrics: false });
    expect(again.apiKey).toBe(first.apiKey); // kept while it works
    await again.stop();
    await revoke();
    await first.stop();
    const third = await startHost({ port: 0, storage, metrics: false });
    try {
      expect(third.apiKey).not.toBe(first.apiKey);
      expect((await fetch(`${third.url}/v1/balances`, { headers: { authorization: `Bearer ${third.apiKey}` } })).status).toBe(200);
      expect(third.accountId).toBe(first.accountId);
    } finally {
      await third.stop();
    }
  });
});

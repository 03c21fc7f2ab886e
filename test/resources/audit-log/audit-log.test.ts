import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { AuditRecordObject } from "../../../src/modules";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const [memory] = storageKinds();

async function call(w: TestWorld, method: string, path: string, body?: unknown, key?: string) {
  const res = await w.request(method, path, { ...(body !== undefined ? { body } : {}), ...(key !== undefined ? { key } : {}) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Every record of the account's log, oldest first, read through the engine's API. */
async function auditLog(w: TestWorld): Promise<AuditRecordObject[]> {
  const all: AuditRecordObject[] = [];
  for await (const r of w.engine.auditLog.list(w.ctx, { limit: 200 })) all.push(r);
  return all.reverse();
}

describe("the audit log", () => {
  it("records who changed a key, from which request, and what changed, with an event of the same type", async () => {
    const w = await testWorld(memory!);
    try {
      const created = await call(w, "POST", "/v1/api_keys", { name: "ci", scopes: ["payouts:write"] });
      expect(created.status).toBe(200);
      const callerKey = (await w.engine.auth.authenticate(`Bearer ${w.apiKey}`))._unsafeUnwrap().keyId;
      const log = await call(w, "GET", "/v1/audit_log?action=api_key.created");
      expect(log.status).toBe(200);
      const [record] = log.body.data as AuditRecordObject[];
      expect(record).toMatchObject({
        object: "audit_record",
        action: "api_key.created",
        actor: { type: "api_key", api_key: callerKey },
        resource: { type: "api_key", id: created.body.id },
        changes: { name: { from: null, to: "ci" }, scopes: { from: null, to: ["payouts:write"] } },
        livemode: false,
      });
      expect(record!.request.id).toMatch(/^req_/);
      expect(JSON.stringify(record)).not.toContain(String(created.body.secret));
      const events = await call(w, "GET", "/v1/events?type=api_key.created");
      const [event] = events.body.data as { data: { object: Record<string, unknown> }; request: { id: string } }[];
      expect(event!.data.object.id).toBe(created.body.id);
      expect(event!.data.object).not.toHaveProperty("secret");
      expect(event!.request.id).toBe(record!.request.id);
      expect((await call(w, "GET", `/v1/audit_log/${record!.id}`)).body).toEqual(record);
    } finally {
      await w.close();
    }
  });

  it("names a rotation of a webhook secret by fingerprint, never the secret, and the host's own changes as the host's", async () => {
    const w = await testWorld(memory!);
    try {
      const ep = await call(w, "POST", "/v1/webhook_endpoints", { url: "https://example.com/hooks", enabled_events: ["*"] });
      const rotated = await call(w, "POST", `/v1/webhook_endpoints/${String(ep.body.id)}/rotate_secret`);
      expect(rotated.status).toBe(200);
      const [record] = (await call(w, "GET", "/v1/audit_log?action=webhook_endpoint.secret_rotated")).body.data as AuditRecordObject[];
      const change = record!.changes.secret as { from: string; to: string };
      expect(change.from).toMatch(/^sha256:[0-9a-f]{8}$/);
      expect(change.to).toMatch(/^sha256:[0-9a-f]{8}$/);
      expect(change.from).not.toBe(change.to);
      const all = JSON.stringify(await auditLog(w));
      expect(all).not.toContain(String(ep.body.secret));
      expect(all).not.toContain(String(rotated.body.secret));
      (await w.engine.accounts.setPolicy(w.accountId, { max_payout_amount: { USDC: "100" } }))._unsafeUnwrap();
      const [policy] = (await call(w, "GET", "/v1/audit_log?action=account.policy_updated")).body.data as AuditRecordObject[];
      expect(policy).toMatchObject({
        actor: { type: "host", api_key: null },
        resource: { type: "account", id: w.accountId },
        changes: { max_payout_amount: { from: {}, to: { USDC: "100" } } },
        request: { id: null, idempotency_key: null },
      });
    } finally {
      await w.close();
    }
  });

  it("keeps keys' last_used to the minute, and is for full-access keys only", async () => {
    const w = await testWorld(memory!);
    try {
      const restricted = await call(w, "POST", "/v1/api_keys", { scopes: ["payouts:read"] });
      expect(restricted.body.last_used).toBeNull();
      expect((await call(w, "GET", "/v1/audit_log", undefined, String(restricted.body.secret))).status).toBe(403);
      const used = (await call(w, "GET", `/v1/api_keys/${String(restricted.body.id)}`)).body;
      expect(used.last_used).toBe(new Date(w.clock.now()).toISOString());
      w.clock.advance(30_000);
      await call(w, "GET", "/v1/balances", undefined, String(restricted.body.secret));
      expect((await call(w, "GET", `/v1/api_keys/${String(restricted.body.id)}`)).body.last_used).toBe(used.last_used);
      w.clock.advance(30_000);
      await call(w, "GET", "/v1/balances", undefined, String(restricted.body.secret));
      expect((await call(w, "GET", `/v1/api_keys/${String(restricted.body.id)}`)).body.last_used).toBe(new Date(w.clock.now()).toISOString());
    } finally {
      await w.close();
    }
  });
});

/**
 * Random sequences of the API's changes to keys, endpoints and the policy (valid and invalid),
 * mixed with every write a client could try on the log itself: after each step, every record
 * seen before is still there, unchanged, and the log grew by exactly the changes that succeeded.
 */
type Step =
  | { op: "key.create"; scopes: string[] }
  | { op: "key.roll" | "key.revoke"; pick: number }
  | { op: "endpoint.create"; url: string }
  | { op: "endpoint.update"; pick: number; status: "enabled" | "disabled" }
  | { op: "endpoint.rotate" | "endpoint.delete"; pick: number }
  | { op: "policy"; max: string }
  | { op: "tamper"; method: "POST" | "DELETE" | "PUT" | "PATCH"; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.subarray(["payouts:write", "balances:read", "nonsense:scope"]).map((scopes) => ({ op: "key.create" as const, scopes })),
  fc.record({ op: fc.constantFrom("key.roll" as const, "key.revoke" as const), pick: fc.nat(20) }),
  fc.constantFrom("https://example.com/a", "https://example.org/b", "http://127.0.0.1/private").map((url) => ({ op: "endpoint.create" as const, url })),
  fc.record({ op: fc.constant("endpoint.update" as const), pick: fc.nat(20), status: fc.constantFrom("enabled" as const, "disabled" as const) }),
  fc.record({ op: fc.constantFrom("endpoint.rotate" as const, "endpoint.delete" as const), pick: fc.nat(20) }),
  fc.constantFrom("10", "250.5", "-1").map((max) => ({ op: "policy" as const, max })),
  fc.record({
    op: fc.constant("tamper" as const),
    method: fc.constantFrom("POST" as const, "DELETE" as const, "PUT" as const, "PATCH" as const),
    pick: fc.nat(20),
  }),
);

async function apply(w: TestWorld, s: Step, keys: string[], endpoints: string[], records: AuditRecordObject[]): Promise<number> {
  const pick = <T>(xs: T[], n: number) => xs[n % Math.max(1, xs.length)] ?? "none";
  switch (s.op) {
    case "key.create": {
      const r = await call(w, "POST", "/v1/api_keys", { scopes: s.scopes });
      if (r.status === 200) keys.push(String(r.body.id));
      return r.status === 200 ? 1 : 0;
    }
    case "key.roll": {
      const r = await call(w, "POST", `/v1/api_keys/${pick(keys, s.pick)}/roll`, { grace_period: 60 });
      if (r.status === 200) keys.push(String(r.body.id));
      return r.status === 200 ? 1 : 0;
    }
    case "key.revoke": {
      const before = await call(w, "GET", `/v1/api_keys/${pick(keys, s.pick)}`);
      const r = await call(w, "POST", `/v1/api_keys/${pick(keys, s.pick)}/revoke`);
      return r.status === 200 && before.body.status !== "revoked" ? 1 : 0;
    }
    case "endpoint.create": {
      const r = await call(w, "POST", "/v1/webhook_endpoints", { url: s.url, enabled_events: ["*"] });
      if (r.status === 200) endpoints.push(String(r.body.id));
      return r.status === 200 ? 1 : 0;
    }
    case "endpoint.update": {
      const r = await call(w, "POST", `/v1/webhook_endpoints/${pick(endpoints, s.pick)}`, { status: s.status, description: "x" });
      return r.status === 200 ? 1 : 0;
    }
    case "endpoint.rotate":
      return (await call(w, "POST", `/v1/webhook_endpoints/${pick(endpoints, s.pick)}/rotate_secret`)).status === 200 ? 1 : 0;
    case "endpoint.delete":
      return (await call(w, "DELETE", `/v1/webhook_endpoints/${pick(endpoints, s.pick)}`)).status === 200 ? 1 : 0;
    case "policy": {
      const before = (await call(w, "GET", "/v1/account")).body as { policy: { max_payout_amount: Record<string, string> } };
      const r = await call(w, "POST", "/v1/account/policy", { max_payout_amount: { USDC: s.max } });
      return r.status === 200 && before.policy.max_payout_amount.USDC !== s.max ? 1 : 0;
    }
    case "tamper": {
      const id = records.length ? records[s.pick % records.length]!.id : "aud_00000000000000000000000000";
      for (const path of ["/v1/audit_log", `/v1/audit_log/${id}`]) {
        const r = await call(w, s.method, path, s.method === "DELETE" ? undefined : { action: "api_key.revoked", changes: {} });
        expect(r.status, `${s.method} ${path}`).toBeGreaterThanOrEqual(400);
      }
      return 0;
    }
  }
}

for (const [kind, runs] of storageKinds().map((k, i) => [k, i === 0 ? 40 : 4] as const)) {
  describe(`the audit log on ${kind.name}`, () => {
    it("no API sequence deletes or alters a record; each change that succeeds adds exactly one", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
          const w = await testWorld(kind);
          try {
            const keys: string[] = [];
            const endpoints: string[] = [];
            let seen = await auditLog(w);
            for (const s of steps) {
              const added = await apply(w, s, keys, endpoints, seen);
              const now = await auditLog(w);
              expect(now.slice(0, seen.length), JSON.stringify(s)).toEqual(seen);
              expect(now.length - seen.length, JSON.stringify(s)).toBe(added);
              seen = now;
            }
          } finally {
            await w.close();
          }
        }),
        { numRuns: runs, interruptAfterTimeLimit: 40_000, markInterruptAsFailure: true },
      );
    }, 90_000);
  });
}

afterAll(closeSharedStorage);

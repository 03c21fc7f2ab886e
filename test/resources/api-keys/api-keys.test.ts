import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashApiKey } from "../../../src/resources/accounts/auth";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

const json = (res: Response): Promise<any> => res.json();

for (const kind of storageKinds()) {
  describe(`API keys on ${kind.name}`, () => {
    let w: TestWorld;
    beforeEach(async () => {
      w = await testWorld(kind);
    });
    afterEach(() => w.close());

    const post = (path: string, body?: unknown, opts: { key?: string; idem?: string } = {}) =>
      w.request("POST", path, {
        ...(body !== undefined ? { body } : {}),
        ...(opts.key ? { key: opts.key } : {}),
        ...(opts.idem ? { headers: { "Idempotency-Key": opts.idem } } : {}),
      });
    const get = (path: string, key?: string) => w.request("GET", path, key ? { key } : {});
    const works = async (key: string) => (await get("/v1/balances", key)).status;

    it("creates a key shown once, lists the last 4 characters only, and keeps only its hash", async () => {
      const res = await post("/v1/api_keys", { name: "ci", scopes: ["balances:read"] }, { idem: "create-1" });
      expect(res.status).toBe(200);
      const created = await json(res);
      expect(created).toMatchObject({ object: "api_key", name: "ci", livemode: false, scopes: ["balances:read"], status: "active", expires_at: null });
      expect(created.id).toMatch(/^key_[0-9a-z]{26}$/);
      expect(created.secret).toMatch(/^sk_test_[A-Za-z0-9_-]{16,}$/);
      expect(created.last4).toBe(created.secret.slice(-4));
      expect(await works(created.secret)).toBe(200);

      // an idempotent replay answers the same key, never its secret again
      const replay = await post("/v1/api_keys", { name: "ci", scopes: ["balances:read"] }, { idem: "create-1" });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      const replayed = await json(replay);
      expect(replayed.id).toBe(created.id);
      expect(replayed).not.toHaveProperty("secret");

      const listText = await (await get("/v1/api_keys")).text();
      expect(listText).not.toContain(created.secret);
      expect(listText).not.toContain(created.secret.slice(0, 12));
      const list = JSON.parse(listText);
      expect(list).toMatchObject({ object: "list", has_more: false, next_cursor: null });
      expect(list.data.map((k: any) => k.id)).toContain(created.id);
      expect(list.data.every((k: any) => !("secret" in k) && /^[A-Za-z0-9_-]{4}$/.test(k.last4))).toBe(true);
      expect(await json(await get(`/v1/api_keys/${created.id}`))).toEqual(list.data.find((k: any) => k.id === created.id));

      // at rest: the SHA-256 of the key, never the key
      const stored = await w.engine.storage.transaction((tx) => tx.accounts.getApiKey(w.accountId, created.id));
      expect(stored?.hash).toBe(hashApiKey(created.secret));
      expect(JSON.stringify(stored, (_, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(created.secret);
    });

    it("pages the list with cursors", async () => {
      for (let i = 0; i < 3; i++) await post("/v1/api_keys", { name: `k${i}` });
      const first = await json(await get("/v1/api_keys?limit=2"));
      expect(first.data).toHaveLength(2);
      expect(first.has_more).toBe(true);
      const rest = await json(await get(`/v1/api_keys?limit=2&starting_after=${first.next_cursor}`));
      const names = [...first.data, ...rest.data].map((k: any) => k.name);
      expect(names.slice(0, 3)).toEqual(["k2", "k1", "k0"]); // newest first; the world's own key last
      expect(rest.has_more).toBe(false);
    });

    it("lets restricted keys do what their scopes say, and never manage keys (403)", async () => {
      const restricted = (await json(await post("/v1/api_keys", { scopes: ["payouts:read"] }))).secret;
      expect((await get("/v1/payouts", restricted)).status).toBe(200);
      expect((await get("/v1/balances", restricted)).status).toBe(403);
      for (const [method, path] of [
        ["GET", "/v1/api_keys"],
        ["POST", "/v1/api_keys"],
        ["POST", "/v1/api_keys/key_x/roll"],
        ["POST", "/v1/api_keys/key_x/revoke"],
      ] as const) {
        const res = await w.request(method, path, { key: restricted, ...(method === "POST" ? { body: {} } : {}) });
        expect(res.status, path).toBe(403);
        expect((await json(res)).error).toMatchObject({ type: "permission_error", code: "permission_denied" });
      }
    });

    it("rolls a key: the new one works, the old one for the grace period, then stops", async () => {
      const old = await json(await post("/v1/api_keys", { name: "server", scopes: ["balances:read"] }));
      const rolled = await json(await post(`/v1/api_keys/${old.id}/roll`, { grace_period: 60 }));
      expect(rolled).toMatchObject({ object: "api_key", name: "server", scopes: ["balances:read"], status: "active" });
      expect(rolled.id).not.toBe(old.id);
      expect(rolled.secret).not.toBe(old.secret);
      const before = await json(await get(`/v1/api_keys/${old.id}`));
      expect(before).toMatchObject({ status: "active" });
      expect(Date.parse(before.expires_at) - w.clock.now()).toBe(60_000);
      w.clock.advance(59_999);
      expect(await works(old.secret)).toBe(200);
      expect(await works(rolled.secret)).toBe(200);
      w.clock.advance(1);
      const gone = await get("/v1/balances", old.secret);
      expect(gone.status).toBe(401);
      expect((await json(gone)).error).toMatchObject({ type: "authentication_error", code: "api_key_invalid" });
      expect(await works(rolled.secret)).toBe(200);
      expect((await json(await get(`/v1/api_keys/${old.id}`))).status).toBe("expired");
      // an expired key cannot be rolled again
      const again = await post(`/v1/api_keys/${old.id}/roll`, {});
      expect(again.status).toBe(400);
      expect((await json(again)).error).toMatchObject({ code: "parameter_invalid", param: "id" });

      // without a grace period the old key stops at once
      const now = await json(await post(`/v1/api_keys/${rolled.id}/roll`, {}));
      expect(await works(rolled.secret)).toBe(401);
      expect(await works(now.secret)).toBe(200);
    });

    it("revokes a key at once; revoking again changes nothing; unknown and foreign ids are 404", async () => {
      const key = await json(await post("/v1/api_keys", {}));
      expect(await works(key.secret)).toBe(200);
      const revoked = await json(await post(`/v1/api_keys/${key.id}/revoke`));
      expect(revoked).toMatchObject({ id: key.id, status: "revoked" });
      expect(revoked.revoked_at).not.toBeNull();
      expect(await works(key.secret)).toBe(401);
      expect(await json(await post(`/v1/api_keys/${key.id}/revoke`))).toEqual(revoked);
      expect((await post(`/v1/api_keys/${key.id}/roll`, {})).status).toBe(400);
      expect((await post("/v1/api_keys/key_00000000000000000000000000/revoke")).status).toBe(404);

      const other = await w.engine.accounts.create({ name: "Other" });
      const foreign = (await w.engine.apiKeys.create(await w.engine.accounts.context(other.id), {}))._unsafeUnwrap();
      expect((await get(`/v1/api_keys/${foreign.id}`)).status).toBe(404);
      expect((await post(`/v1/api_keys/${foreign.id}/revoke`)).status).toBe(404);
      expect(await works(foreign.secret!)).toBe(200);
    });

    it("refuses bad input with nothing made", async () => {
      const before = (await json(await get("/v1/api_keys"))).data.length;
      for (const body of [{ scopes: ["payouts:delete"] }, { scopes: "payouts:read" }, { name: "x".repeat(101) }]) {
        const res = await post("/v1/api_keys", body);
        expect(res.status).toBe(400);
        expect((await json(res)).error.code).toBe("parameter_invalid");
      }
      const key = await json(await post("/v1/api_keys", {}));
      for (const grace_period of [-1, 7 * 86_400 + 1, "soon"]) {
        expect((await post(`/v1/api_keys/${key.id}/roll`, { grace_period })).status).toBe(400);
      }
      expect(await works(key.secret)).toBe(200);
      expect((await json(await get("/v1/api_keys"))).data.length).toBe(before + 1);
    });

    it("makes live keys for live accounts, through the engine API too", async () => {
      const live = await w.engine.accounts.create({ name: "Live", livemode: true });
      const ctx = await w.engine.accounts.context(live.id);
      const made = (await w.engine.apiKeys.create(ctx, { scopes: ["balances:read"] }))._unsafeUnwrap();
      expect(made.secret).toMatch(/^sk_live_/);
      expect(made.livemode).toBe(true);
      expect(await works(made.secret!)).toBe(200);
      const page = (await w.engine.apiKeys.list(ctx))._unsafeUnwrap();
      expect(page.data.map((k) => k.id)).toEqual([made.id]);
      (await w.engine.apiKeys.revoke(ctx, made.id))._unsafeUnwrap();
      expect(await works(made.secret!)).toBe(401);
    });
  });
}

afterAll(closeSharedStorage);

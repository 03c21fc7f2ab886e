import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createHttpDelivery } from "../../../adapters/delivery";
import { testWorld, type TestWorld } from "../../support/engine";
import { type ReceivedRequest, TestReceiver } from "../../support/receiver";
import { closeSharedStorage, storageKinds } from "../../support/storage";
import { trigger } from "../../support/webhooks";

/** A standard-format secret (whsec_ + base64 of `bytes` bytes), which suits the stripe scheme too. */
const standardSecret = (fill: number, bytes = 32) => `whsec_${Buffer.alloc(bytes, fill).toString("base64")}`;

for (const kind of storageKinds()) {
  describe(`signature schemes and secrets of webhook endpoints over ${kind.name}`, () => {
    let w: TestWorld;
    let receiver: TestReceiver;
    beforeEach(async () => {
      receiver = await TestReceiver.start();
      w = await testWorld(kind, { delivery: createHttpDelivery({ allowPrivateNetworks: true }) });
    });
    afterEach(async () => {
      await w.close();
      await receiver.close();
    });

    async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
      const res = await w.request(method, path, body === undefined ? {} : { body });
      return { status: res.status, body: await res.json() };
    }

    /** Registers an endpoint of the receiver, answering 200 with its secret. */
    async function register(extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string; signature_scheme: string }> {
      const created = await call("POST", "/v1/webhook_endpoints", { url: receiver.url(), enabled_events: ["payout.settled"], ...extra });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      return created.body;
    }

    /** Emits one event and delivers it; answers the request the receiver got. */
    async function deliverOne(): Promise<ReceivedRequest> {
      const before = receiver.requests.length;
      await trigger(w, "payout.settled");
      await w.engine.worker.runDue();
      expect(receiver.requests).toHaveLength(before + 1);
      return receiver.requests[before]!;
    }

    /** Whether the standardwebhooks package, at the engine's time, accepts the request with `secret`. */
    function standardAccepts(req: ReceivedRequest, secret: string): boolean {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(w.clock.now());
      try {
        new Webhook(secret).verify(req.body, req.headers);
        return true;
      } catch {
        return false;
      } finally {
        vi.useRealTimers();
      }
    }

    function stripeAccepts(req: ReceivedRequest, secret: string): boolean {
      try {
        return (
          Stripe.webhooks.constructEvent(req.body, req.headers["service-signature"]!, secret, 300, undefined, w.clock.now()).id === JSON.parse(req.body).id
        );
      } catch {
        return false;
      }
    }

    it("signs with Stripe's scheme by default and with Standard Webhooks when asked, the Service-* headers on both", async () => {
      const stripe = await register();
      expect(stripe.signature_scheme).toBe("stripe");
      const viaStripe = await deliverOne();
      expect(stripeAccepts(viaStripe, stripe.secret)).toBe(true);
      expect(Object.keys(viaStripe.headers).filter((h) => h.startsWith("webhook-"))).toEqual([]);
      await call("DELETE", `/v1/webhook_endpoints/${stripe.id}`);

      const standard = await register({ signature_scheme: "standard" });
      expect(standard.signature_scheme).toBe("standard");
      expect(standard.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect((await call("GET", `/v1/webhook_endpoints/${standard.id}`)).body).toMatchObject({ signature_scheme: "standard" });
      const viaStandard = await deliverOne();
      expect(standardAccepts(viaStandard, standard.secret)).toBe(true);
      expect(standardAccepts(viaStandard, standardSecret(1))).toBe(false);
      expect(viaStandard.headers["service-signature"]).toBeUndefined();
      expect(viaStandard.headers["webhook-id"]).toBe(JSON.parse(viaStandard.body).id);
      expect(viaStandard.headers["webhook-timestamp"]).toBe(String(Math.floor(w.clock.now() / 1000)));
      expect(viaStandard.headers["service-event"]).toBe("payout.settled");
      expect(viaStandard.headers["service-delivery"]).toMatch(/^dlv_/);
      expect(viaStandard.headers["service-attempt"]).toBe("1");
    });

    it("takes a secret of the client's own on create, in the scheme's format, and refuses others, creating nothing", async () => {
      const mine = standardSecret(9);
      const ep = await register({ signature_scheme: "standard", secret: mine });
      expect(ep.secret).toBe(mine);
      expect(standardAccepts(await deliverOne(), mine)).toBe(true);
      const stripeOwn = await register({ secret: "whsec_0123456789abcdefABCDEF_-xyz" });
      expect(stripeOwn.secret).toBe("whsec_0123456789abcdefABCDEF_-xyz");
      const before = (await call("GET", "/v1/webhook_endpoints")).body.data;
      for (const body of [
        { signature_scheme: "standard", secret: `whsec_${Buffer.alloc(32, 3).toString("base64url")}` },
        { signature_scheme: "standard", secret: standardSecret(3, 16) },
        { secret: "whsec_short" },
        { signature_scheme: "svix" },
      ]) {
        const refused = await call("POST", "/v1/webhook_endpoints", { url: receiver.url(), enabled_events: ["*"], ...body });
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.error).toMatchObject({ code: "parameter_invalid", param: "secret" in body ? "secret" : "signature_scheme" });
      }
      expect((await call("GET", "/v1/webhook_endpoints")).body.data).toEqual(before);
    });

    it("rotates to a supplied secret with a chosen overlap: both sign until it ends, then the new one alone", async () => {
      const ep = await register({ signature_scheme: "standard" });
      const next = standardSecret(5);
      const rotated = await call("POST", `/v1/webhook_endpoints/${ep.id}/rotate_secret`, { secret: next, expire_previous_in: 600 });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toBe(next);
      const [audited] = (await call("GET", "/v1/audit_log?action=webhook_endpoint.secret_rotated")).body.data;
      expect(audited.changes.previous_secrets_expire_at).toEqual({ from: [], to: [new Date(w.clock.now() + 600_000).toISOString()] });
      let req = await deliverOne();
      expect(req.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
      expect([standardAccepts(req, next), standardAccepts(req, ep.secret)]).toEqual([true, true]);
      w.clock.advance(600_000);
      req = await deliverOne();
      expect([standardAccepts(req, next), standardAccepts(req, ep.secret)]).toEqual([true, false]);
      // expire_previous_in: 0 ends the previous secret at once; a generated one follows the scheme's format
      const now = await call("POST", `/v1/webhook_endpoints/${ep.id}/rotate_secret`, { expire_previous_in: 0 });
      expect(now.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      req = await deliverOne();
      expect([standardAccepts(req, now.body.secret), standardAccepts(req, next)]).toEqual([true, false]);
    });

    it("refuses a bad rotation and changes nothing", async () => {
      const ep = await register();
      for (const [body, param] of [
        [{ expire_previous_in: 604_801 }, "expire_previous_in"],
        [{ expire_previous_in: -1 }, "expire_previous_in"],
        [{ expire_previous_in: 1.5 }, "expire_previous_in"],
        [{ secret: "whsec_x" }, "secret"],
        [{ secret: ep.secret }, "secret"],
      ] as const) {
        const refused = await call("POST", `/v1/webhook_endpoints/${ep.id}/rotate_secret`, body);
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.error).toMatchObject({ code: "parameter_invalid", param });
      }
      const req = await deliverOne();
      expect(req.headers["service-signature"]!.split(",")).toHaveLength(2); // t= and one v1: the only secret
      expect(stripeAccepts(req, ep.secret)).toBe(true);
    });

    it("keeps at most five secrets signing, dropping the ones that expire first", async () => {
      const ep = await register();
      const secrets = [ep.secret];
      for (let i = 1; i <= 6; i++) {
        const rotated = await call("POST", `/v1/webhook_endpoints/${ep.id}/rotate_secret`, { expire_previous_in: 3600 + i });
        secrets.push(rotated.body.secret);
      }
      const req = await deliverOne();
      expect(req.headers["service-signature"]!.split(",")).toHaveLength(6); // t= and five v1
      expect(secrets.map((s) => stripeAccepts(req, s))).toEqual([false, false, true, true, true, true, true]);
    });

    it("switches scheme on update only when every signing secret suits the new one, and audits it without secrets", async () => {
      const ep = await register();
      const refused = await call("POST", `/v1/webhook_endpoints/${ep.id}`, { signature_scheme: "standard", description: "x" });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "parameter_invalid", param: "signature_scheme" });
      expect((await call("GET", `/v1/webhook_endpoints/${ep.id}`)).body).toMatchObject({ signature_scheme: "stripe", description: null });
      // a standard-format secret suits both schemes: rotate to it, ending the old one, then switch
      const both = standardSecret(8);
      await call("POST", `/v1/webhook_endpoints/${ep.id}/rotate_secret`, { secret: both, expire_previous_in: 0 });
      expect(stripeAccepts(await deliverOne(), both)).toBe(true);
      const switched = await call("POST", `/v1/webhook_endpoints/${ep.id}`, { signature_scheme: "standard" });
      expect(switched.status).toBe(200);
      expect(switched.body).toMatchObject({ signature_scheme: "standard" });
      expect(switched.body).not.toHaveProperty("secret");
      expect(standardAccepts(await deliverOne(), both)).toBe(true);
      expect((await call("POST", `/v1/webhook_endpoints/${ep.id}`, { signature_scheme: "stripe" })).status).toBe(200);
      expect(stripeAccepts(await deliverOne(), both)).toBe(true);

      const log = (await call("GET", "/v1/audit_log?limit=200")).body.data;
      const updates = log.filter((r: any) => r.action === "webhook_endpoint.updated");
      expect(updates.map((r: any) => r.changes.signature_scheme)).toEqual([
        { from: "standard", to: "stripe" },
        { from: "stripe", to: "standard" },
      ]);
      const rotation = log.find((r: any) => r.action === "webhook_endpoint.secret_rotated");
      expect(Object.keys(rotation.changes)).toEqual(["secret"]); // expire_previous_in: 0: no secret left in overlap
      const text = JSON.stringify(log);
      for (const secret of [ep.secret, both]) expect(text).not.toContain(secret);
    });
  });
}

afterAll(() => closeSharedStorage());

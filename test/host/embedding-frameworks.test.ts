import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import express from "express";
import { Hono } from "hono";
import Fastify from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/clock";
import { devPorts } from "../../adapters/dev";
import { answerClientErrors, createHttpApp } from "../../adapters/http";
import { createMemoryStorage } from "../../adapters/memory";
import { createEngine, type PayrailEngine as Engine } from "../../src/modules";

/**
 * The hosts of docs/embedding.md, run for real: payrail's /v1 binding mounted in Express, Fastify
 * and plain node:http, beside a route of the host's own that uses the typed engine API.
 */
describe("embedding the /v1 binding in a host's server", () => {
  let engine: Engine;
  let key: string;
  let accountId: string;
  const close: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    engine = await createEngine({ storage: createMemoryStorage(), ...devPorts({ clock: new ManualClock() }) });
    const account = await engine.accounts.create({ name: "Acme" });
    accountId = account.id;
    key = (await engine.accounts.createApiKey(account.id))._unsafeUnwrap().key;
    const ctx = await engine.accounts.context(account.id);
    await engine.testHelpers.fund(ctx, { asset: "USDC", chain: "base", amount: "50" });
  });
  afterEach(async () => {
    for (const stop of close.splice(0)) await stop();
    await engine.close();
  });

  /** The host's own route: how much of each asset the account has available, from the typed API. */
  async function available(): Promise<Record<string, string>> {
    const ctx = await engine.accounts.context(accountId);
    const out: Record<string, string> = {};
    for await (const balance of engine.balances.list(ctx)) if (balance.available !== "0") out[balance.asset] = balance.available;
    return out;
  }

  async function exercise(base: string): Promise<void> {
    const auth = { authorization: `Bearer ${key}` };
    const created = await fetch(`${base}/v1/recipients`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "idempotency-key": "r1" },
      body: JSON.stringify({ name: "Ada", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } }),
    });
    expect(created.status).toBe(200);
    expect(created.headers.get("request-id")).toMatch(/^req_/);
    const replayed = await fetch(`${base}/v1/recipients`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "idempotency-key": "r1" },
      body: JSON.stringify({ name: "Ada", chain_addresses: { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" } }),
    });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(await replayed.json()).toEqual(await created.json());
    const unauthorized = await fetch(`${base}/v1/balances`);
    expect(unauthorized.status).toBe(401);
    expect((await unauthorized.json()).error.code).toBe("api_key_missing");
    const own = await fetch(`${base}/internal/available`);
    expect(await own.json()).toEqual({ USDC: "50" });
  }

  async function listen(server: Server): Promise<string> {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    close.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("plain node:http", async () => {
    const payrail = getRequestListener(createHttpApp(engine).fetch);
    const server = createServer((req, res) => {
      if (req.url === "/internal/available") {
        void available().then((body) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body)));
        return;
      }
      void payrail(req, res);
    });
    answerClientErrors(server, engine);
    await exercise(await listen(server));
  });

  it("a Hono app of the host's own", async () => {
    const app = new Hono();
    app.get("/internal/available", async (c) => c.json(await available()));
    app.route("/", createHttpApp(engine)); // the binding's routes keep their /v1/… paths
    const server = createServer(getRequestListener(app.fetch));
    await exercise(await listen(server));
  });

  it("Express", async () => {
    const app = express();
    app.get("/internal/available", async (_req, res) => {
      res.json(await available());
    });
    // mounted at the root of the path, so the binding sees /v1/… as the client sent it
    app.all("/v1/*splat", getRequestListener(createHttpApp(engine).fetch));
    await exercise(await listen(createServer(app)));
  });

  it("Fastify", async () => {
    const fastify = Fastify();
    fastify.get("/internal/available", async () => available());
    await fastify.register(async (scope) => {
      // the binding reads the body itself (its idempotency fingerprint is of the raw bytes)
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
      const payrail = getRequestListener(createHttpApp(engine).fetch);
      scope.all("/v1/*", async (request, reply) => {
        reply.hijack();
        await payrail(request.raw, reply.raw);
      });
    });
    const address = await fastify.listen({ port: 0, host: "127.0.0.1" });
    close.push(() => fastify.close());
    await exercise(address);
  });
});

import { request as httpRequest } from "node:http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../../adapters/cli/host";
import { createMemoryStorage } from "../../../adapters/memory";
import { testWorld, type TestWorld } from "../../support/engine";
import { closeSharedStorage, storageKinds } from "../../support/storage";

/**
 * Issue 12 found from outside: a NUL or a lone UTF-16 surrogate anywhere answered 500 (PostgreSQL
 * refuses the text), a URL or header over Node's limit a bare 431 without body or Request-Id,
 * a `text/plain` body was read as JSON, and a replayed webhook endpoint create showed its
 * secret a second time.
 */
const NUL = "a\u0000b";
const ADDRESS = { base: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" };
const LONE = "a\ud800b";

async function json(res: Response): Promise<any> {
  return res.json();
}

for (const kind of storageKinds()) {
  describe(`bad text is refused before storage on ${kind.name}`, () => {
    let w: TestWorld;
    beforeEach(async () => {
      w = await testWorld(kind);
    });
    afterEach(() => w.close());

    const refusal = async (res: Response, param: string) => {
      expect(res.status).toBe(400);
      expect(res.headers.get("request-id")).toMatch(/^req_/);
      const body = await json(res);
      expect(body.error).toMatchObject({ type: "invalid_request_error", code: "parameter_invalid", param });
      expect(body.error.request_id).toBe(res.headers.get("request-id"));
    };

    it.each([
      ["NUL", NUL],
      ["a lone high surrogate", LONE],
      ["a lone low surrogate", "x\udc00"],
      ["a reversed pair", "\udc00\ud800"],
    ])("answers 400 parameter_invalid, not 500, for %s in a body, a query, a path id or a key", async (_, bad) => {
      // JSON text carries either as an escape (\u0000, \ud800)
      await refusal(await w.request("POST", "/v1/recipients", { body: { name: bad, chain_addresses: ADDRESS } }), "name");
      await refusal(await w.request("POST", "/v1/recipients", { body: { name: "ok", chain_addresses: { base: bad } } }), "chain_addresses.base");
      await refusal(await w.request("POST", "/v1/payment_intents", { body: { amount: "1", asset: "USDC", reference: bad } }), "reference");
      await refusal(await w.request("POST", "/v1/recipients", { body: `{"name":"ok","chain_addresses":{},${JSON.stringify(bad)}:1}` }), "body");
      if (bad === NUL) {
        // a URL carries NUL as %00; a lone surrogate has no UTF-8 form (%ED%A0%80 reads as U+FFFD)
        await refusal(await w.request("GET", `/v1/payouts?search=${encodeURIComponent(bad)}`), "search");
        await refusal(await w.request("GET", `/v1/payouts?expand[]=${encodeURIComponent(bad)}`), "expand[0]");
        await refusal(await w.request("GET", `/v1/payouts/po_${encodeURIComponent(bad)}`), "id");
        await refusal(await w.request("GET", `/v1/recipients/${encodeURIComponent(bad)}`), "id");
        await refusal(await w.request("POST", `/v1/payouts/${encodeURIComponent(bad)}/approve`), "id");
      } else {
        expect((await w.request("GET", "/v1/payouts?search=%ED%A0%80")).status).toBe(200);
      }
      const list = await json(await w.request("GET", "/v1/recipients"));
      expect(list.data).toEqual([]);
    });

    it("refuses a body nested deeper than any schema, instead of overflowing the stack", async () => {
      const deep = `{"name":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
      const res = await w.request("POST", "/v1/recipients", { body: deep, headers: { "idempotency-key": "deep-1" } });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toMatchObject({ code: "parameter_invalid", message: expect.stringContaining("nested more than 64 levels") });
    });

    it("refuses the same text from a host calling the engine directly", async () => {
      const r = await w.engine.recipients.create(w.ctx, { name: NUL, chain_addresses: ADDRESS });
      expect(r._unsafeUnwrapErr()).toMatchObject({ code: "parameter_invalid", param: "name" });
      const lone = await w.engine.recipients.create(w.ctx, { name: LONE, chain_addresses: ADDRESS });
      expect(lone._unsafeUnwrapErr()).toMatchObject({ code: "parameter_invalid", param: "name" });
    });

    it("keeps well-formed text of every plane, and answers it back unchanged", async () => {
      const name = "Zoë 名前 😀 \u{10FFFF}";
      const res = await w.request("POST", "/v1/recipients", { body: { name, chain_addresses: ADDRESS } });
      expect(res.status).toBe(200);
      const created = await json(res);
      expect(created.name).toBe(name);
      expect((await json(await w.request("GET", `/v1/recipients/${created.id}`))).name).toBe(name);
    });

    // Issue 27: bytes that are not UTF-8 were read as U+FFFD and stored as if the client sent it.
    it.each([
      ["an overlong NUL (C0 80)", [0xc0, 0x80]],
      ["an encoded surrogate (ED A0 80)", [0xed, 0xa0, 0x80]],
      ["a byte UTF-8 never uses (FF)", [0xff]],
      ["a truncated sequence (E2 82)", [0xe2, 0x82]],
    ])("refuses a body with %s as 400, and stores nothing", async (_, bytes) => {
      const head = new TextEncoder().encode('{"name":"a');
      const tail = new TextEncoder().encode(`b","chain_addresses":${JSON.stringify(ADDRESS)}}`);
      const body = new Uint8Array([...head, ...bytes, ...tail]);
      const res = await w.app.request("/v1/recipients", {
        method: "POST",
        headers: { authorization: `Bearer ${w.apiKey}`, "content-type": "application/json", "idempotency-key": `utf8-${bytes.join("-")}` },
        body,
      });
      await refusal(res, "body");
      expect((await json(await w.request("GET", "/v1/recipients"))).data).toEqual([]);
      // the key was given back: the corrected request runs under it
      const fixed = await w.request("POST", "/v1/recipients", {
        body: { name: "ab", chain_addresses: ADDRESS },
        headers: { "idempotency-key": `utf8-${bytes.join("-")}` },
      });
      expect(fixed.status).toBe(200);
      expect((await json(fixed)).name).toBe("ab");
    });
  });
}

describe("request bodies are JSON", () => {
  let w: TestWorld;
  beforeAll(async () => {
    w = await testWorld(storageKinds()[0]!);
  });
  afterAll(() => w.close());

  const post = (path: string, body: string | undefined, contentType: string | null, key?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${w.apiKey}` };
    if (contentType !== null) headers["content-type"] = contentType;
    if (key) headers["idempotency-key"] = key;
    return w.app.request(path, { method: "POST", headers, ...(body === undefined ? {} : { body }) });
  };
  const recipient = JSON.stringify({ name: "Ada", chain_addresses: ADDRESS });

  it("refuses a body without a JSON content type with 415 content_type_unsupported, and creates nothing", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", null]) {
      const res = await post("/v1/recipients", recipient, type);
      expect(res.status, String(type)).toBe(415);
      expect(res.headers.get("request-id")).toMatch(/^req_/);
      expect((await json(res)).error).toMatchObject({ type: "invalid_request_error", code: "content_type_unsupported" });
    }
    expect((await json(await w.request("GET", "/v1/recipients"))).data).toEqual([]);
  });

  it("takes application/json with a charset and +json types", async () => {
    expect((await post("/v1/recipients", recipient, "application/json; charset=utf-8")).status).toBe(200);
    expect((await post("/v1/recipients", recipient, "Application/JSON")).status).toBe(200);
    expect((await post("/v1/recipients", recipient, "application/merge-patch+json")).status).toBe(200);
  });

  it("reads an empty body as no parameters whatever its content type, so bodiless POSTs need none", async () => {
    const created = await json(await w.request("POST", "/v1/webhook_endpoints", { body: { url: "https://hooks.example.com/x", enabled_events: ["*"] } }));
    for (const type of [null, "text/plain", "application/json"]) {
      const res = await post(`/v1/webhook_endpoints/${created.id}/rotate_secret`, undefined, type);
      expect(res.status, String(type)).toBe(200);
      expect((await post(`/v1/webhook_endpoints/${created.id}/rotate_secret`, "", type)).status).toBe(200);
    }
  });
});

for (const kind of storageKinds()) {
  describe(`a webhook endpoint's secret is shown once on ${kind.name}`, () => {
    let w: TestWorld;
    beforeEach(async () => {
      w = await testWorld(kind);
    });
    afterEach(() => w.close());

    it("is in the first answer to create and rotate_secret, never in a replay", async () => {
      const body = { url: "https://hooks.example.com/x", enabled_events: ["*"] };
      const first = await w.request("POST", "/v1/webhook_endpoints", { body, headers: { "idempotency-key": "we-1" } });
      const created = await json(first);
      expect(created.secret).toMatch(/^whsec_/);
      const replay = await w.request("POST", "/v1/webhook_endpoints", { body, headers: { "idempotency-key": "we-1" } });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      const { secret: _, ...shown } = created;
      expect(await json(replay)).toEqual(shown);

      const rotated = await json(await w.request("POST", `/v1/webhook_endpoints/${created.id}/rotate_secret`, { headers: { "idempotency-key": "rot-1" } }));
      expect(rotated.secret).toMatch(/^whsec_/);
      const again = await w.request("POST", `/v1/webhook_endpoints/${created.id}/rotate_secret`, { headers: { "idempotency-key": "rot-1" } });
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(await json(again)).not.toHaveProperty("secret");
      // and the idempotency record itself never held it
      const stored = JSON.stringify(await w.harness.inspect.idempotencyKeys(w.accountId));
      expect(stored).not.toContain(created.secret);
      expect(stored).not.toContain(rotated.secret);
    });
  });
}

describe("over-long URLs and headers", () => {
  let host: RunningHost;
  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), metrics: false });
  });
  afterAll(() => host.stop());

  /** A raw request through the host's real node:http server (fetch would refuse some of these itself). */
  const raw = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const url = new URL(host.url);
      const req = httpRequest({ host: url.hostname, port: url.port, path, method: "GET", headers }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end();
    });

  it("answers 431 headers_too_large in the error shape with a Request-Id, not a bare 431", async () => {
    const auth = { authorization: `Bearer ${host.apiKey}` };
    for (const [path, headers] of [
      [`/v1/payouts?search=${"x".repeat(20_000)}`, auth],
      ["/v1/payouts", { ...auth, "x-padding": "y".repeat(20_000) }],
    ] as const) {
      const res = await raw(path, headers);
      expect(res.status).toBe(431);
      expect(res.headers["request-id"]).toMatch(/^req_/);
      expect(res.headers["content-type"]).toBe("application/json");
      const body = JSON.parse(res.body);
      expect(body.error).toMatchObject({ type: "invalid_request_error", code: "headers_too_large", request_id: res.headers["request-id"] });
    }
    // the server still answers
    expect((await raw("/v1/payouts", auth)).status).toBe(200);
  });

  it("answers the same from the binding itself, whatever server mounts it", async () => {
    const w = await testWorld(storageKinds()[0]!);
    try {
      const res = await w.request("GET", `/v1/payouts?search=${"x".repeat(20_000)}`);
      expect(res.status).toBe(431);
      expect((await json(res)).error.code).toBe("headers_too_large");
      const header = await w.request("GET", "/v1/payouts", { headers: { "x-padding": "y".repeat(20_000) } });
      expect(header.status).toBe(431);
    } finally {
      await w.close();
    }
  });
});

afterAll(() => closeSharedStorage());

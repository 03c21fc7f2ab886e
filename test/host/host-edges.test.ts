import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../adapters/cli/host";
import { createLogger } from "../../adapters/logging/logger";
import { createMemoryStorage } from "../../adapters/memory";

/** What came back on a raw connection before the server closed it. */
interface RawAnswer {
  status: number | null;
  headers: Record<string, string>;
  body: any;
  /** Bytes the server sent; 0 when it closed the connection without a word. */
  bytes: number;
}

function parseAnswer(text: string): RawAnswer {
  const [head = "", ...rest] = text.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  const bodyText = rest.join("\r\n\r\n");
  let body: any = bodyText;
  try {
    body = JSON.parse(bodyText);
  } catch {}
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
  return { status: status ? Number(status) : null, headers, body, bytes: Buffer.byteLength(text) };
}

/**
 * Opens a TCP connection to the host, writes `first`, then `trickle` every 20 ms for as long as
 * the connection is open (never stopping by itself), and resolves with what the server answered
 * once the server closes the connection.
 */
function rawConnection(url: string, first: string, trickle?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    let text = "";
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (text += d));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      resolve(parseAnswer(text));
    });
    socket.on("end", () => socket.end());
    socket.write(first);
    if (trickle) timer = setInterval(() => socket.writable && socket.write(trickle), 20);
  });
}

/** A request through node:http with headers fetch would not send (a forged Host). */
function rawRequest(url: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Issue 24.5: the edges of the host's HTTP server. */
describe("the host server's edges", () => {
  let host: RunningHost;
  const lines: string[] = [];
  beforeAll(async () => {
    host = await startHost({
      port: 0,
      storage: createMemoryStorage(),
      serverLimits: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
      metricsToken: "metrics-token-1",
      logger: createLogger({ destination: { write: (line: string) => void lines.push(line) } }),
    });
  });
  afterAll(() => host.stop());

  const logged = () => lines.map((l) => JSON.parse(l));
  const scrape = async () => {
    const res = await fetch(`${host.url}/metrics`, { headers: { authorization: "Bearer metrics-token-1" } });
    expect(res.status).toBe(200);
    return parsePrometheusTextFormat(await res.text());
  };
  /** The request counter's samples: `METHOD route status` → count. */
  const requestCounts = async () =>
    new Map(
      ((await scrape()).find((f) => f.name === "payrail_http_requests_total")?.metrics ?? []).map((s) => [
        `${s.labels!.method} ${s.labels!.route} ${s.labels!.status}`,
        Number(s.value),
      ]),
    );
  const expectErrorShape = (answer: RawAnswer, status: number, code: string) => {
    expect(answer.status).toBe(status);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.headers["request-id"]).toMatch(/^req_/);
    expect(answer.body.error).toMatchObject({ code, request_id: answer.headers["request-id"] });
  };

  it("answers an HTTP/1.1 request without Host, OPTIONS * and a backslash path with the JSON error and a Request-Id, counted as 400", async () => {
    const before = await requestCounts();
    const refused = [
      "GET /v1/balances HTTP/1.1\r\n\r\n",
      "OPTIONS * HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "GET /v1\\balances HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "NOT A REQUEST\r\n\r\n",
    ];
    for (const request of refused) expectErrorShape(await rawConnection(host.url, request), 400, "parameter_invalid");
    const after = await requestCounts();
    const grew = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(grew("GET unmatched 400")).toBe(2);
    expect(grew("OPTIONS unmatched 400")).toBe(1);
    expect(grew("unknown unmatched 400")).toBe(1);
    expect([...after.keys()].filter((k) => k.endsWith(" 500"))).toEqual([]);
    // HTTP/1.0 has no Host: its requests are for the address they reached (old health checkers send them)
    const old = await rawConnection(host.url, "GET /v1/balances HTTP/1.0\r\n\r\n");
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe("api_key_missing");
  });

  it("counts and logs a body the client cuts off as a 4xx, never as a 500 or an internal error", async () => {
    const post = (framing: string, partial: string) =>
      `POST /v1/recipients HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${host.apiKey}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n${partial}`;
    for (const request of [post("Transfer-Encoding: chunked", '20\r\n{"name":"A'), post("Content-Length: 100", '{"name":"A')]) {
      const { hostname, port } = new URL(host.url);
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), hostname, () => socket.end(request)); // the client closes mid-body
        socket.resume();
        socket.on("error", () => undefined);
        socket.on("close", () => resolve());
      });
    }
    // a malformed chunk: refused at once, under the Request-Id the log names too
    const bad = await rawConnection(host.url, post("Transfer-Encoding: chunked", "zz\r\n"));
    expectErrorShape(bad, 400, "parameter_invalid");

    const started = Date.now();
    let counts = await requestCounts();
    const cutOff = () => [...counts].filter(([k]) => k.startsWith("POST ") && k.endsWith(" 400")).reduce((n, [, v]) => n + v, 0);
    while (cutOff() < 3 && Date.now() - started < 10_000) {
      await new Promise((r) => setTimeout(r, 50));
      counts = await requestCounts();
    }
    expect(cutOff()).toBe(3);
    expect([...counts.keys()].filter((k) => k.endsWith(" 500"))).toEqual([]);
    expect(logged().filter((l) => l.level === "error")).toEqual([]);
    expect(logged().find((l) => l.request_id === bad.headers["request-id"])).toMatchObject({ method: "POST", status: 400 });
  });

  it("cuts off a client that trickles its headers or its body, with 408 request_timeout, however steadily it sends", async () => {
    // nothing at all, headers a line at a time, a body a byte at a time (by length and chunked)
    const idle = await rawConnection(host.url, "");
    expectErrorShape(idle, 408, "request_timeout");
    const headers = await rawConnection(host.url, "GET /v1/balances HTTP/1.1\r\nHost: localhost\r\n", "X-Slow: 1\r\n");
    expectErrorShape(headers, 408, "request_timeout");
    const post = `POST /v1/recipients HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${host.apiKey}\r\nContent-Type: application/json\r\n`;
    const body = await rawConnection(host.url, `${post}Content-Length: 1000000\r\n\r\n{"name":"`, "a");
    expectErrorShape(body, 408, "request_timeout");
    const chunked = await rawConnection(host.url, `${post}Transfer-Encoding: chunked\r\n\r\n`, "1\r\na\r\n");
    expectErrorShape(chunked, 408, "request_timeout");
    // the app logs the requests it had begun under the Request-Id the client got
    for (const answer of [body, chunked]) {
      const started = Date.now();
      while (!logged().some((l) => l.request_id === answer.headers["request-id"]) && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 20));
      expect(logged().find((l) => l.request_id === answer.headers["request-id"])).toMatchObject({ method: "POST", status: 408 });
    }
    // and the server still answers
    expect((await fetch(`${host.url}/v1/balances`, { headers: { authorization: `Bearer ${host.apiKey}` } })).status).toBe(200);
  });

  it("serves /metrics behind its token, refusing without it in the error shape", async () => {
    const missing = await fetch(`${host.url}/metrics`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("request-id")).toMatch(/^req_/);
    expect((await missing.json()).error).toMatchObject({
      type: "authentication_error",
      code: "api_key_missing",
      request_id: missing.headers.get("request-id"),
    });
    for (const authorization of ["Bearer metrics-token-2", "Bearer metrics-token-1x", `Bearer ${host.apiKey}`]) {
      const wrong = await fetch(`${host.url}/metrics`, { headers: { authorization } });
      expect(wrong.status).toBe(401);
      expect((await wrong.json()).error.code).toBe("api_key_invalid");
    }
    expect((await scrape()).some((f) => f.name === "payrail_http_requests_total")).toBe(true);
  });

  it("signs report links on the address the connection reached, whatever Host or request target the client sends", async () => {
    const auth = { authorization: `Bearer ${host.apiKey}`, "content-type": "application/json" };
    const forged = { ...auth, host: "evil.example" };
    const created = await rawRequest(host.url, "POST", "/v1/reports", forged, JSON.stringify({ type: "ledger_entries" }));
    expect(created.status).toBe(200);
    let report = created.body;
    for (let i = 0; i < 200 && report.status !== "ready"; i++) {
      await new Promise((r) => setTimeout(r, 25));
      report = (await rawRequest(host.url, "GET", `/v1/reports/${report.id}`, forged)).body;
    }
    expect(report.status).toBe("ready");
    expect(new URL(report.url).origin).toBe(host.url);
    const absolute = await rawRequest(host.url, "GET", `http://evil.example:9/v1/reports/${report.id}`, forged);
    expect(new URL(absolute.body.url).origin).toBe(host.url);
    const listed = await rawRequest(host.url, "GET", "/v1/reports", forged);
    expect(listed.body.data.map((r: any) => new URL(r.url).origin)).toEqual([host.url]);
    expect((await fetch(report.url)).status).toBe(200);
  });
});

describe("the host server's connection cap", () => {
  let host: RunningHost;
  beforeAll(async () => {
    host = await startHost({ port: 0, storage: createMemoryStorage(), metrics: false, serverLimits: { maxConnections: 2 } });
  });
  afterAll(() => host.stop());

  /** A kept-alive connection that has been answered once (so the server holds it). */
  const held = (): Promise<Socket> => {
    const { hostname, port } = new URL(host.url);
    return new Promise((resolve) => {
      const socket = connect(Number(port), hostname, () => socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"));
      socket.once("data", () => resolve(socket));
    });
  };

  it("closes connections over the cap without a word, and serves again once one is gone", async () => {
    const first = await held();
    const second = await held();
    const over = await rawConnection(host.url, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    expect(over.bytes).toBe(0);
    first.destroy();
    second.destroy();
    let served: RawAnswer = over;
    const started = Date.now();
    while (served.status === null && Date.now() - started < 5_000) {
      served = await rawConnection(host.url, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    }
    expect(served.status).toBe(200);
  });
});

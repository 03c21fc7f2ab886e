import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../adapters/cli/host";
import { createMemoryStorage } from "../../adapters/memory";

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Every HTTP/1.1 answer in `bytes` (each has a Content-Length), and what could not be read as one. */
function answersIn(bytes: Buffer): { answers: Answer[]; rest: string } {
  const answers: Answer[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf("\r\n\r\n", at);
    if (end < 0) break;
    const [statusLine = "", ...lines] = bytes.subarray(at, end).toString("latin1").split("\r\n");
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1];
    if (!status) break;
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
    if (status.startsWith("1")) {
      at = end + 4; // an interim answer (100 Continue) has no body
      continue;
    }
    const length = Number(headers["content-length"] ?? Number.NaN);
    if (!Number.isInteger(length)) break;
    answers.push({ status: Number(status), headers, body: bytes.subarray(end + 4, end + 4 + length).toString("utf8") });
    at = end + 4 + length;
  }
  return { answers, rest: bytes.subarray(at).toString("latin1") };
}

/** Writes `request`, closes the sending side, and resolves with all the server sent until it closed. */
function exchange(url: string, request: string): Promise<Buffer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.end(request, "latin1"));
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(Buffer.concat(chunks)));
  });
}

const token = fc.stringMatching(/^[A-Za-z]{1,8}$/);
// mostly well-formed, so the refusals of the app and the edge's both come up
const method = fc.oneof({ arbitrary: fc.constantFrom("GET", "POST", "OPTIONS", "PUT", "DELETE", "PATCH", "CONNECT", "TRACE"), weight: 4 }, token);
const target = fc.oneof(
  { arbitrary: fc.constantFrom("/v1/balances", "/v1/payouts?limit=2", "/v1/recipients"), weight: 3 },
  fc.constantFrom("*", "/v1\\balances", "/v1/..%2f", "//x", "/%zz", "http://evil.example/v1/balances", "https://x/", "?", ""),
  fc.string({ unit: "binary-ascii", maxLength: 20 }).map((s) => `/v1/${s.replace(/[\r\n ]/g, "")}`),
);
const version = fc.oneof({ arbitrary: fc.constant("HTTP/1.1"), weight: 4 }, fc.constantFrom("HTTP/1.0", "HTTP/2.0", "HTTP/1.1x", ""));
const host = fc.oneof({ arbitrary: fc.constant(["Host: localhost"]), weight: 3 }, fc.constant([]));
const header = fc.oneof(
  fc.constantFrom(
    "Host: localhost",
    "Host: evil.example:1",
    "Host: a b",
    "Host:",
    "Transfer-Encoding: chunked",
    "Content-Length: 5",
    "Content-Length: -1",
    "Expect: 100-continue",
    "Expect: magic",
    "Content-Type: application/json",
  ),
  fc.tuple(token, fc.string({ unit: "binary-ascii", maxLength: 12 })).map(([n, v]) => `${n}: ${v.replace(/[\r\n]/g, "")}`),
  fc.string({ unit: "binary-ascii", maxLength: 16 }).map((s) => s.replace(/[\r\n]/g, "")),
);
const body = fc.oneof(
  fc.constant(""),
  fc.constantFrom("5\r\nhello\r\n0\r\n\r\n", "zz\r\n", '{"a":1}', "9\r\n{"),
  fc.string({ unit: "binary-ascii", maxLength: 24 }),
);

/** Issue 24.5: whatever a client sends, every answer it gets is the error shape with a Request-Id, and none is a 5xx. */
describe("the host server's answers to anything", () => {
  let server: RunningHost;
  beforeAll(async () => {
    server = await startHost({ port: 0, storage: createMemoryStorage(), metrics: false, serverLimits: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 } });
  });
  afterAll(() => server.stop());

  it("answers every request, well-formed or not, with JSON and a Request-Id, and never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(method, target, version, host, fc.array(header, { maxLength: 4 }), body, async (m, t, v, h, hs, b) => {
        const request = `${m} ${t} ${v}\r\n${[...h, ...hs].map((line) => `${line}\r\n`).join("")}\r\n${b}`;
        const { answers, rest } = answersIn(await exchange(server.url, request));
        expect(rest).toBe("");
        expect(answers.length).toBeGreaterThan(0);
        for (const answer of answers) {
          expect(answer.status).toBeLessThan(500);
          expect(answer.headers["content-type"]).toMatch(/^application\/json/);
          expect(answer.headers["request-id"]).toMatch(/^req_/);
          const parsed = JSON.parse(answer.body);
          if (answer.status >= 400) expect(parsed.error.request_id).toBe(answer.headers["request-id"]);
        }
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});

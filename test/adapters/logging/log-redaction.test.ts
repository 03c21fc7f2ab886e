import { describe, expect, it } from "vitest";
import { startHost } from "../../../adapters/cli/host";
import { createLogger, REDACTED } from "../../../adapters/logging/logger";
import { createMemoryStorage } from "../../../adapters/memory";
import type { VenueAdapter } from "../../../src/ports/venue";

const API_KEY = "sk_test_R3dact3dKeyR3dact3dKey";
const LIVE_KEY = "sk_live_L1veKeyL1veKeyL1veKey";
const MNEMONIC = "test test test test test test test test test test test junk";
const DB_PASSWORD = "s3cr3t-pa55word";
const WHSEC = "whsec_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde";

/** A capture destination: every line the logger writes. */
function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

function expectNoSecrets(output: string, also: string[] = []) {
  for (const secret of [API_KEY, LIVE_KEY, MNEMONIC, DB_PASSWORD, WHSEC, ...also]) expect(output).not.toContain(secret);
  expect(output).not.toMatch(/sk_(test|live)_[A-Za-z0-9]/);
  expect(output).not.toMatch(/whsec_[A-Za-z0-9]/);
}

/** Issue 13: structured logs never carry API keys, webhook secrets, mnemonics or passwords. */
describe("log redaction", () => {
  it("redacts secrets by key name, by shape and by known value, wherever they are in a record", () => {
    const { lines, destination } = capture();
    const logger = createLogger({ destination, secrets: [MNEMONIC, DB_PASSWORD], level: "debug" });
    logger.info({ headers: { authorization: `Bearer ${API_KEY}` } }, "a request");
    logger.info({ endpoint: { id: "we_1", secret: WHSEC }, config: { PAYRAIL_SIGNER_MNEMONIC: MNEMONIC, apiKey: LIVE_KEY } }, "config");
    logger.warn(`the receiver answered with ${WHSEC} and ${API_KEY} in a message`);
    logger.error({ err: new Error(`cannot connect to postgres://payrail:${DB_PASSWORD}@db:5432/x with ${LIVE_KEY}`) }, "storage");
    logger.error({ err: new Error("wrapped", { cause: new Error(`mnemonic was ${MNEMONIC}`) }) }, "nested cause");
    logger.info({ note: `the words ${MNEMONIC} in free text`, list: [{ password: "hunter2-hunter2" }] }, "free text");
    logger.debug({ url: `postgres://user:${DB_PASSWORD}@127.0.0.1/db` }, "a url");
    const output = lines.join("");
    expectNoSecrets(output, ["hunter2-hunter2"]);
    expect(output.split(REDACTED).length - 1).toBeGreaterThanOrEqual(10);
    const records = lines.map((l) => JSON.parse(l));
    expect(records.map((r) => r.level)).toEqual(["info", "info", "warn", "error", "error", "info", "debug"]);
    expect(records[0].headers.authorization).toBe(REDACTED);
    expect(records[1]).toMatchObject({ endpoint: { id: "we_1", secret: REDACTED }, config: { PAYRAIL_SIGNER_MNEMONIC: REDACTED, apiKey: REDACTED } });
    expect(records[3].err.message).toBe(`cannot connect to postgres://payrail:${REDACTED}@db:5432/x with ${REDACTED}`);
    expect(records[6].url).toBe(`postgres://user:${REDACTED}@127.0.0.1/db`);
  });

  it("keeps secrets out of the host's logs while every request line carries its request id", async () => {
    const { lines, destination } = capture();
    const leaky: VenueAdapter = {
      name: "leaky",
      testModeOnly: true,
      async snapshot() {
        throw new Error(`venue refused key ${LIVE_KEY}; operator mnemonic ${MNEMONIC}; secret ${WHSEC}`);
      },
      async execute() {
        throw new Error("unused");
      },
    };
    const host = await startHost({
      port: 0,
      storage: createMemoryStorage(),
      apiKey: API_KEY,
      venues: [leaky],
      metrics: false,
      logger: createLogger({ destination, secrets: [MNEMONIC, DB_PASSWORD], level: "debug" }),
    });
    const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
    try {
      const balances = await fetch(`${host.url}/v1/balances`, { headers });
      const requestId = balances.headers.get("request-id");
      await fetch(`${host.url}/v1/balances`, { headers: { authorization: `Bearer ${API_KEY}x` } }); // 401
      const endpoint = await fetch(`${host.url}/v1/webhook_endpoints`, {
        method: "POST",
        headers,
        body: JSON.stringify({ url: "https://example.com/hooks", enabled_events: ["*"] }),
      });
      expect((await endpoint.json()).secret).toMatch(/^whsec_/);
      const quote = await fetch(`${host.url}/v1/quotes`, {
        method: "POST",
        headers,
        body: JSON.stringify({ from: { asset: "ETH", amount: "1" }, to: { asset: "USDC" }, ttl: 60 }),
      });
      expect(quote.status).toBe(500);
      const quoteRequestId = quote.headers.get("request-id");

      const records = lines.map((l) => JSON.parse(l));
      expect(records.find((r) => r.msg === "request" && r.request_id === requestId)).toMatchObject({
        level: "info",
        method: "GET",
        route: "/v1/balances",
        status: 200,
      });
      expect(records.some((r) => r.msg === "request" && r.status === 401)).toBe(true);
      const internal = records.find((r) => r.msg === "internal error");
      expect(internal).toMatchObject({ level: "error", request_id: quoteRequestId });
      expect(JSON.stringify(internal)).toContain(REDACTED);
      expect(records.find((r) => r.msg === "adapter call failed")).toMatchObject({ level: "warn", port: "venue", adapter: "leaky" });
      expectNoSecrets(lines.join(""));
    } finally {
      await host.stop();
    }
  });
});

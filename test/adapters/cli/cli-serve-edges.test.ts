import { describe, expect, it } from "vitest";
import { runCli } from "../../support/cli";

/** `payrail serve`'s server limits (issue 24.5) are checked before anything starts. */
describe("payrail serve: the HTTP server's timeouts and connection cap", () => {
  const refused: [Record<string, string>, RegExp][] = [
    [{ PAYRAIL_HEADERS_TIMEOUT_SECONDS: "0" }, /PAYRAIL_HEADERS_TIMEOUT_SECONDS must be a positive number of seconds, got 0/],
    [{ PAYRAIL_REQUEST_TIMEOUT_SECONDS: "never" }, /PAYRAIL_REQUEST_TIMEOUT_SECONDS must be a positive number of seconds, got never/],
    [{ PAYRAIL_KEEP_ALIVE_TIMEOUT_SECONDS: "-1" }, /PAYRAIL_KEEP_ALIVE_TIMEOUT_SECONDS must be a positive number of seconds, got -1/],
    [{ PAYRAIL_MAX_CONNECTIONS: "1.5" }, /PAYRAIL_MAX_CONNECTIONS must be a positive whole number, got 1.5/],
    [{ PAYRAIL_MAX_CONNECTIONS: "0" }, /PAYRAIL_MAX_CONNECTIONS must be a positive whole number, got 0/],
    // the default headers timeout (10 s) is longer than a 5 s request timeout
    [{ PAYRAIL_REQUEST_TIMEOUT_SECONDS: "5" }, /PAYRAIL_REQUEST_TIMEOUT_SECONDS must be at least PAYRAIL_HEADERS_TIMEOUT_SECONDS/],
    [{ PAYRAIL_HEADERS_TIMEOUT_SECONDS: "30", PAYRAIL_REQUEST_TIMEOUT_SECONDS: "20" }, /must be at least PAYRAIL_HEADERS_TIMEOUT_SECONDS/],
  ];
  for (const [env, message] of refused) {
    it(`refuses ${JSON.stringify(env)} with exit code 2`, async () => {
      const run = runCli(["serve"], { PORT: "0", LOG_LEVEL: "silent", ...env });
      expect(await run.done).toBe(2);
      expect(run.stderr).toMatch(message);
    });
  }
});

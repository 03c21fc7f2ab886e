import { describe, expect, it } from "vitest";
import { runCli } from "../../support/cli";

/** `payrail serve`'s heartbeat knobs (issue 23) are checked before anything starts. */
describe("payrail serve: PAYRAIL_HEARTBEAT_SECONDS and PAYRAIL_OWNER_LIFETIME_SECONDS", () => {
  const refused: [Record<string, string>, RegExp][] = [
    [{ PAYRAIL_HEARTBEAT_SECONDS: "0" }, /PAYRAIL_HEARTBEAT_SECONDS must be a positive number of seconds, got 0/],
    [{ PAYRAIL_HEARTBEAT_SECONDS: "soon" }, /PAYRAIL_HEARTBEAT_SECONDS must be a positive number of seconds, got soon/],
    [{ PAYRAIL_OWNER_LIFETIME_SECONDS: "-5" }, /PAYRAIL_OWNER_LIFETIME_SECONDS must be a positive number of seconds, got -5/],
    [{ PAYRAIL_HEARTBEAT_SECONDS: "2", PAYRAIL_OWNER_LIFETIME_SECONDS: "3" }, /at least twice PAYRAIL_HEARTBEAT_SECONDS/],
    // the default lifetime (5 s) is less than twice a 3 s heartbeat
    [{ PAYRAIL_HEARTBEAT_SECONDS: "3" }, /at least twice PAYRAIL_HEARTBEAT_SECONDS/],
  ];
  for (const [env, message] of refused) {
    it(`refuses ${JSON.stringify(env)} with exit code 2`, async () => {
      const run = runCli(["serve"], { PORT: "0", LOG_LEVEL: "silent", ...env });
      expect(await run.done).toBe(2);
      expect(run.stderr).toMatch(message);
    });
  }
});

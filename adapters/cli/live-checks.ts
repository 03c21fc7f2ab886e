import type { ConfigurationCheck } from "../../src/ports/chain";

/**
 * A live configuration the host refuses to start with (a token of other decimals, a node of
 * another chain, a mistyped mnemonic, a malformed `PAYRAIL_CHAINS`): one line per mistake,
 * naming the setting and, for a mismatch, both values. `payrail serve` prints it without a
 * stack trace and exits 2, as for its other settings.
 */
export class LiveConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LiveConfigurationError";
  }
}

/** What can check its configuration against its chain: the live chain adapters and venues. */
interface Checkable {
  readonly name: string;
  checkConfiguration?(): Promise<ConfigurationCheck[]>;
}

/**
 * Every live adapter's checks against its chain, in order, one line each. A node that cannot be
 * asked is a `warning` (the adapter checks again before it first moves anything, and refuses to
 * while a check fails), so a host whose node is briefly down still starts.
 */
export async function checkLiveAdapters(adapters: readonly Checkable[]): Promise<ConfigurationCheck[]> {
  const checks: ConfigurationCheck[] = [];
  for (const adapter of adapters) {
    if (!adapter.checkConfiguration) continue;
    try {
      checks.push(...(await adapter.checkConfiguration()));
    } catch (e) {
      const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
      checks.push({
        subject: adapter.name,
        outcome: "warning",
        message: `${adapter.name}: could not check the configuration against the node (${why}); it is checked before anything moves`,
      });
    }
  }
  return checks;
}

/** Throws the checks' failures as one `LiveConfigurationError`, a line each; answers the rest. */
export function refuseFailures(checks: readonly ConfigurationCheck[]): ConfigurationCheck[] {
  const failed = checks.filter((c) => c.outcome === "fail");
  if (failed.length) throw new LiveConfigurationError(failed.map((c) => c.message).join("\n"));
  return checks.filter((c) => c.outcome !== "fail");
}

import type { ConfigurationCheck } from "../../src/ports/public";

/** The configuration does not match the chain (a check's `fail`): the adapter refuses to work. */
export class ConfigurationMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigurationMismatch";
  }
}

/**
 * What a live chain adapter runs before it prices, sends, credits or sweeps anything: its checks
 * of the node (the chain's identity, its tokens' decimals), once per process. `passed()`
 * resolves once they found nothing failing and rejects with `ConfigurationMismatch`, for good,
 * when one failed: nothing moves against a wrong chain or a token of other decimals. A node that
 * could not be asked is asked again at the next call (the engine retries the work meanwhile).
 */
export class ConfigurationGate {
  private verifying: Promise<void> | null = null;

  constructor(private readonly check: () => Promise<ConfigurationCheck[]>) {}

  passed(): Promise<void> {
    this.verifying ??= this.check().then(
      (checks) => {
        const failed = checks.filter((c) => c.outcome === "fail");
        if (failed.length) throw new ConfigurationMismatch(failed.map((c) => c.message).join("; "));
      },
      (e: unknown) => {
        this.verifying = null;
        throw e;
      },
    );
    return this.verifying;
  }
}

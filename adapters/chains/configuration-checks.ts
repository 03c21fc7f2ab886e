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

/** Why gas cannot be priced in `asset` on `chain`, naming the settings that would price it (a check's warning, a payout's `no_route`). */
export function noGasPrice(chain: string, gas: string, asset: string): string {
  return `no price for ${chain}'s gas (${gas}) in ${asset}: set fee_rates.${asset} of ${chain} in PAYRAIL_CHAINS, or a live venue trading ${gas}/${asset} (PAYRAIL_VENUES)`;
}

/**
 * A line per payout asset of a chain: whether its gas has a price in the asset (`rate` answers
 * one, from `fee_rates` or the venues), a warning naming the settings when not: live payouts of
 * that asset are refused until one is set.
 */
export async function gasPriceChecks(
  chain: string,
  gas: string,
  assets: readonly string[],
  rate: (asset: string) => Promise<unknown>,
): Promise<ConfigurationCheck[]> {
  const checks: ConfigurationCheck[] = [];
  for (const asset of assets) {
    const subject = `${chain}.fee_rates.${asset}`;
    const priced = await rate(asset).catch(() => null);
    checks.push(
      priced
        ? { subject, outcome: "ok", message: `${chain}: gas is priced in ${asset}` }
        : { subject, outcome: "warning", message: `${noGasPrice(chain, gas, asset)}; live ${asset} payouts on ${chain} are refused until then` },
    );
  }
  return checks;
}

const HOT_WALLET_SUBJECT = ": hot wallet";

/** Whether a check is a `hotWalletCheck` (it says which wallet the signer's keys make). */
export function isHotWalletCheck(check: ConfigurationCheck): boolean {
  return check.subject.endsWith(HOT_WALLET_SUBJECT);
}

/**
 * The signer's hot wallet against the one the adapter's state was made with (recorded at the first
 * check): another mnemonic, or a typo that is still a valid one, would be a new, empty wallet
 * beside the funds and deposit addresses of the old. A fail: the adapter refuses to work.
 */
export function hotWalletCheck(chain: string, signer: string, recorded: string): ConfigurationCheck {
  const subject = `${chain}${HOT_WALLET_SUBJECT}`;
  return signer.toLowerCase() === recorded.toLowerCase()
    ? { subject, outcome: "ok", message: `${chain}: hot wallet ${signer}` }
    : {
        subject,
        outcome: "fail",
        message: `${chain}: the signer's hot wallet is ${signer}, but this storage's is ${recorded} (another mnemonic, or a mistyped one that is still valid?)`,
      };
}

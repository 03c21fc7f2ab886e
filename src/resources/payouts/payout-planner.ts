import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../../errors";
import type { AssetDefinition } from "../../money/assets";
import { formatAmount } from "../../money/amount";
import { divCeil } from "../../money/rounding";
import type { FeeSchedule, FeeUnavailable } from "../../ports/chain";
import { routePayout, type ChainCandidate, type RoutedLeg } from "../../routing/payout-routing";
import type { ModuleDeps } from "../../engine/context";
import type { RecipientDoc } from "../recipients/recipients-service";

export interface PlannedLeg extends RoutedLeg {
  address: string;
}

export interface PayoutPlan {
  legs: PlannedLeg[];
  fee: bigint;
  approximate: boolean;
}

export interface RoutingOptions {
  preferChains: string[];
  maxNetworkFee: bigint | null;
}

/**
 * Routes payouts of one asset for one account, one request or batch at a time: it reads each
 * chain's fee schedule and hot-wallet liquidity once, knows what the account holds per chain,
 * and takes what each planned payout uses off both, so the payouts of a batch never count the
 * same liquidity or funds twice. Calls to chain adapters happen here, outside any transaction:
 * `prepare` makes them ahead, so that `plan` can run inside one, on funds read under its locks.
 */
export class PayoutPlanner {
  private readonly schedules = new Map<string, FeeSchedule | FeeUnavailable | null>();
  /** Hot-wallet liquidity per chain as the adapters reported it. */
  private readonly reported = new Map<string, bigint>();
  /** What is left of it for the payouts planned from here on. */
  private liquidity = new Map<string, bigint>();

  constructor(
    private readonly deps: Pick<ModuleDeps, "chains" | "observer">,
    private readonly livemode: boolean,
    private readonly asset: AssetDefinition,
    /** The account's available balance per chain (base units); planning takes from it. */
    private funds: Map<string, bigint> = new Map(),
  ) {}

  /** Reads the chains `recipient` could be paid on (fee schedules, liquidity) now, so `plan` calls no adapter. */
  async prepare(recipient: RecipientDoc): Promise<void> {
    for (const chain of this.asset.chains) if (recipient.chainAddresses[chain] !== undefined) await this.schedule(chain);
  }

  /**
   * Plans from now on against these funds (per chain, base units: what a transaction read under
   * its locks) and the liquidity the chains reported, as if nothing were planned yet: a
   * transaction the storage runs again plans afresh.
   */
  useFunds(funds: Map<string, bigint>): void {
    this.funds = funds;
    this.liquidity = new Map(this.reported);
  }

  async plan(recipient: RecipientDoc, amount: bigint, options: RoutingOptions): Promise<Result<PayoutPlan, ApiError>> {
    const chains = this.asset.chains.filter((chain) => recipient.chainAddresses[chain] !== undefined);
    if (chains.length === 0) {
      return fail(
        "recipient_address_missing",
        `Recipient ${recipient.id} has no address on a chain that carries ${this.asset.code} (${this.asset.chains.join(", ")})`,
        { param: "recipient" },
      );
    }
    const candidates: ChainCandidate[] = [];
    const unavailable: string[] = [];
    let hotTotal = 0n;
    let fundsTotal = 0n;
    for (const chain of chains) {
      const schedule = await this.schedule(chain);
      if (schedule && "unavailable" in schedule) unavailable.push(`${chain}: ${schedule.unavailable}`);
      if (!schedule || "unavailable" in schedule) continue;
      const hot = this.liquidity.get(chain)!;
      const usable = usableFunds(this.funds.get(chain) ?? 0n, schedule);
      hotTotal += hot;
      fundsTotal += usable;
      candidates.push({
        chain,
        liquidity: hot < usable ? hot : usable,
        fixed: schedule.fixed,
        proportionalPpm: schedule.proportionalPpm,
        cap: schedule.perTransferCap,
      });
    }
    if (candidates.length === 0) {
      // what a chain adapter said is missing (a price for gas: the setting to add), else the bare fact
      const why = unavailable.length ? `: ${unavailable.join("; ")}` : "";
      return fail("no_route", `No chain can send ${this.asset.code} to recipient ${recipient.id} in this mode${why}`);
    }
    const route = routePayout({
      amount,
      candidates,
      preferChains: options.preferChains,
      maxNetworkFee: options.maxNetworkFee,
    });
    if ("code" in route) {
      if (route.code === "no_route") {
        return fail(
          "no_route",
          `No route carries this payout within max_network_fee: the cheapest costs ${formatAmount(route.cheapestFee, this.asset)} ${this.asset.code}`,
        );
      }
      if (fundsTotal < amount) {
        return fail("insufficient_funds", `Insufficient available ${this.asset.code} (with network fees) on the recipient's chains for this payout`);
      }
      return fail(
        "insufficient_liquidity",
        `The engine's hot wallets hold ${formatAmount(hotTotal, this.asset)} ${this.asset.code} on the recipient's chains, less than the payout`,
      );
    }
    const legs = route.legs.map((leg) => ({ ...leg, address: recipient.chainAddresses[leg.chain]! }));
    for (const leg of legs) {
      this.liquidity.set(leg.chain, this.liquidity.get(leg.chain)! - leg.amount);
      this.funds.set(leg.chain, (this.funds.get(leg.chain) ?? 0n) - leg.amount - leg.fee);
    }
    return ok({ legs, fee: route.fee, approximate: route.approximate });
  }

  private async schedule(chain: string): Promise<FeeSchedule | FeeUnavailable | null> {
    if (!this.schedules.has(chain)) {
      const adapter = this.deps.chains.for(chain, this.livemode);
      if (!adapter) {
        this.schedules.set(chain, null);
      } else {
        this.schedules.set(chain, await adapter.feeSchedule(chain, this.asset.code));
        const liquidity = await adapter.liquidity(chain, this.asset.code);
        const balance = Number(formatAmount(liquidity, this.asset));
        this.deps.observer.domainObserved?.({ type: "hot_wallet_balance", chain, asset: this.asset.code, livemode: this.livemode, balance });
        this.reported.set(chain, liquidity);
        this.liquidity.set(chain, liquidity);
      }
    }
    return this.schedules.get(chain)!;
  }
}

/**
 * How much of `available` a payout can send on a chain when its network fee comes out of the
 * same balance: the most x with x + fee(x) ≤ available, taken conservatively as
 * available − fee(available).
 */
function usableFunds(available: bigint, schedule: FeeSchedule): bigint {
  if (available <= 0n) return 0n;
  const transfers = schedule.perTransferCap && schedule.perTransferCap > 0n ? divCeil(available, schedule.perTransferCap) : 1n;
  // every transfer rounds its proportional part up by less than one unit
  const fee = transfers * schedule.fixed + divCeil(available * schedule.proportionalPpm, 1_000_000n) + transfers;
  return available > fee ? available - fee : 0n;
}

/** Parses the `routing` of a payout request against its asset. */
export function routingOptions(
  asset: AssetDefinition,
  routing: { prefer_chains?: string[]; max_network_fee?: string } | undefined,
  parseFee: (value: string) => Result<bigint, ApiError>,
): Result<RoutingOptions, ApiError> {
  const preferChains = routing?.prefer_chains ?? [];
  for (const [i, chain] of preferChains.entries()) {
    if (!asset.chains.includes(chain)) {
      return fail("chain_unsupported", `${asset.code} is not carried on ${chain}`, { param: `routing.prefer_chains[${i}]` });
    }
  }
  let maxNetworkFee: bigint | null = null;
  if (routing?.max_network_fee !== undefined) {
    const fee = parseFee(routing.max_network_fee);
    if (fee.isErr()) return err(fee.error);
    maxNetworkFee = fee.value;
  }
  return ok({ preferChains, maxNetworkFee });
}

import { err, ok, type Result } from "neverthrow";
import { type ApiError, fail } from "../errors";
import { LedgerInvariantError } from "../ledger/ledger";
import { COUNTER, type PostingLine } from "../ledger/postings";
import type { AssetDefinition } from "../money/assets";
import { OrderPricer, type Pricing } from "../quoting/order-pricer";
import type { PlacedExecution } from "../quoting/venue-set";
import { formatAmount } from "../money/amount";
import type { Out } from "../api/response-schema";
import type { ConversionExecution } from "../api/common-objects";
import type { StoredPricing } from "../quoting/pricing-record";
import type { ModuleDeps } from "../engine/context";
import type { UnitOfWork } from "../engine/unit-of-work";

/**
 * What quotes, swaps and limit-order fills share: pricing against the venues now, executing a
 * stored pricing, and the ledger side of a conversion.
 */

/** What pricing a conversion takes: the venues, the clock, and the platform fee of the configuration. */
export type PricingDeps = Pick<ModuleDeps, "venues" | "clock" | "config">;

/** The seed: no platform fee when both assets are stablecoins; the configured fee otherwise. */
export function platformFeeBps(deps: Pick<ModuleDeps, "config">, from: AssetDefinition, to: AssetDefinition): bigint {
  return from.stablecoin && to.stablecoin ? 0n : BigInt(deps.config.platformFeeBps);
}

/** A conversion needs two different assets (`parameter_invalid` on `to.asset`). */
export function distinctAssets(from: AssetDefinition, to: AssetDefinition): Result<true, ApiError> {
  return from.code === to.code ? fail("parameter_invalid", "to.asset must differ from from.asset", { param: "to.asset" }) : ok(true);
}

/**
 * A pricer on the snapshots the venues of the account's mode show now (those `usable` accepts,
 * default all), or `no_route` when no venue trades the pair: a live account without a real
 * venue is told so, never priced by a simulation.
 */
export async function pricerNow(
  deps: PricingDeps,
  livemode: boolean,
  from: AssetDefinition,
  to: AssetDefinition,
  usable: (venue: string) => boolean = () => true,
): Promise<Result<{ pricer: OrderPricer; pricedAt: number }, ApiError>> {
  const pricedAt = deps.clock.now();
  const venues = deps.venues.for(livemode);
  if (livemode && venues.size === 0) {
    return fail("no_route", "No live venue is configured on this engine (PAYRAIL_VENUES): live accounts are never priced by the simulated venues", {
      param: "to.asset",
    });
  }
  const snapshots = (await venues.snapshots(from.code, to.code)).filter((s) => usable(s.venue));
  if (snapshots.length === 0) {
    return fail("no_route", `No venue converts ${from.code} to ${to.code}`, { param: "to.asset" });
  }
  return ok({ pricer: new OrderPricer(snapshots, platformFeeBps(deps, from, to)), pricedAt });
}

/**
 * Prices converting `amount` now: `no_route` when nothing trades the pair or the fees would eat
 * the whole output, `insufficient_liquidity` when the venues cannot absorb it.
 */
export async function priceNow(
  deps: PricingDeps,
  livemode: boolean,
  from: AssetDefinition,
  to: AssetDefinition,
  amount: bigint,
): Promise<Result<Pricing & { pricedAt: number }, ApiError>> {
  const pricer = await pricerNow(deps, livemode, from, to);
  if (pricer.isErr()) return err(pricer.error);
  const priced = pricer.value.pricer.price(amount);
  if (priced.isErr()) return err(priced.error);
  if (priced.value.netOut <= 0n) {
    return fail("no_route", `Converting this amount of ${from.code} would not cover the fees`, { param: "from.amount" });
  }
  return ok({ ...priced.value, pricedAt: pricer.value.pricedAt });
}

/**
 * Executes a stored pricing on the venues, outside any transaction, idempotent by
 * `executionId`: each leg must deliver at least what it was priced at.
 */
export function executePricing(
  deps: Pick<ModuleDeps, "venues">,
  livemode: boolean,
  executionId: string,
  from: string,
  to: string,
  pricing: StoredPricing,
): Promise<PlacedExecution> {
  return deps.venues.for(livemode).execute({
    executionId,
    from,
    to,
    pricedAt: pricing.pricedAt,
    legs: pricing.legs.map((l) => ({ venue: l.venue, amountIn: l.amountIn, minAmountOut: l.amountOut })),
  });
}

/**
 * The chain a conversion must stay on when its venues are on-chain pools (`VenueAdapter.chain`):
 * the venues of `legs`, or every venue offering the pair when the legs are not chosen yet (a
 * limit order). Null when none is on a chain. `chain_unsupported` when `destination` is another
 * chain, or the venues span several (payrail has no bridge yet).
 */
export async function venueChain(
  deps: Pick<ModuleDeps, "venues">,
  livemode: boolean,
  from: string,
  to: string,
  legs: readonly string[] | null,
  destination: string | null,
): Promise<Result<string | null, ApiError>> {
  const venues = deps.venues.for(livemode);
  if (!venues.onChain) return ok(null); // no venue is on a chain: nothing to ask
  const names = legs ?? (await venues.snapshots(from, to)).map((s) => s.venue);
  const chains = await venues.chainsOf(from, to, names);
  if (chains.length === 0) return ok(null);
  if (chains.length > 1 || (destination !== null && chains[0] !== destination)) {
    return fail(
      "chain_unsupported",
      `This conversion executes on ${chains.join(" and ")}: it delivers on its venues' chain, and payrail has no bridge${destination ? ` to ${destination}` : ""} yet`,
      { param: "destination_chain" },
    );
  }
  return ok(chains[0]!);
}

/** Whether an executed result's venues trade on a chain (`VenueAdapter.chain`): their legs moved the hot wallet. */
export function executedOnChain(result: Extract<PlacedExecution, { status: "executed" }>): boolean {
  return result.legs.some((leg) => leg.chain !== null);
}

/** What the venues delivered in all, from an executed result. */
export function delivered(result: Extract<PlacedExecution, { status: "executed" }>): bigint {
  return result.legs.reduce((sum, leg) => sum + leg.amountOut, 0n);
}

/** One leg of a conversion as executed, as a swap or a fill keeps it: where (chain, transaction, block) and how much. */
export interface ExecutionDoc {
  venue: string;
  chain: string | null;
  txHash: string | null;
  block: number | null;
  /** Base units of the conversion's input and output. */
  amountIn: string;
  amountOut: string;
  path: string[];
}

/** The legs of an executed result as kept in a document. */
export function executionDocs(result: Extract<PlacedExecution, { status: "executed" }>): ExecutionDoc[] {
  return result.legs.map((leg) => ({
    venue: leg.venue,
    chain: leg.chain,
    txHash: leg.transaction?.txHash ?? null,
    block: leg.transaction?.block ?? null,
    amountIn: leg.amountIn.toString(),
    amountOut: leg.amountOut.toString(),
    path: leg.path,
  }));
}

/** Executions as the API shows them (docs/decisions.md §12: a swap's `executions`, a fill's). */
/** A swap's or fill's executions as the API shows them (`executions`): amounts in the conversion's assets, none when none were kept. */
export function presentExecutions(docs: readonly ExecutionDoc[] | undefined, from: AssetDefinition, to: AssetDefinition): Out<typeof ConversionExecution>[] {
  return (docs ?? []).map((e) => ({
    venue: e.venue,
    chain: e.chain,
    tx_hash: e.txHash,
    block: e.block,
    from_amount: formatAmount(BigInt(e.amountIn), from),
    to_amount: formatAmount(BigInt(e.amountOut), to),
    path: e.path,
  }));
}

/** A reservation an order holds, as kept in its document. */
export interface HeldReservation {
  id: string;
  chain: string;
  amount: string;
}

/** What the reservations still hold, read under their locks: the funds check at each fill. */
export async function stillReserved(uow: UnitOfWork, accountId: string, held: readonly HeldReservation[]): Promise<bigint> {
  let total = 0n;
  for (const h of held) {
    const r = await uow.tx.ledger.lockReservation(accountId, h.id);
    if (r && r.status === "active") total += r.remaining;
  }
  return total;
}

export interface Settlement {
  accountId: string;
  /** The venues that executed it trade on a chain (their transactions moved the hot wallet): `counter:venues_on_chain`, else `counter:venues`. */
  onChain: boolean;
  resource: string;
  /** Names this settlement among the resource's postings (`settle` for a swap, the fill id for a fill). */
  step: string;
  held: readonly HeldReservation[];
  /** Input spent, taken from the reservations in their order. */
  amountIn: bigint;
  /** With `final`, whatever the reservations still hold afterwards is released. */
  final: boolean;
  to: AssetDefinition;
  chain: string;
  /** What the venues delivered. */
  delivered: bigint;
  /** What the customer receives. */
  netOut: bigint;
  networkFee: bigint;
}

/**
 * The ledger side of a conversion, balanced per asset through the counter-accounts: the input
 * leaves the reservations for `counter:venues` (`counter:venues_on_chain` for venues on a chain); of the output the venues delivered, the
 * customer's `available` on `chain` gets `netOut`, `counter:network_fees` the network fee and
 * the house account's `available` the rest (the platform fee, plus any price improvement on a
 * committed quote).
 */
export async function settleConversion(uow: UnitOfWork, s: Settlement): Promise<Result<void, ApiError>> {
  const venues = s.onChain ? COUNTER.venuesOnChain : COUNTER.venues;
  let left = s.amountIn;
  for (const h of s.held) {
    const r = await uow.tx.ledger.lockReservation(s.accountId, h.id);
    if (!r || r.status !== "active") continue;
    const take = r.remaining < left ? r.remaining : left;
    if (take === 0n && !s.final) continue;
    await uow.ledger.capture(s.accountId, h.id, take, venues, {
      transition: `${s.step}:in:${h.id}`,
      final: s.final,
      resource: s.resource,
    });
    left -= take;
  }
  if (left !== 0n) throw new LedgerInvariantError(`reservations of ${s.resource} hold less than ${s.amountIn}`);
  const platform = s.delivered - s.netOut - s.networkFee;
  if (platform < 0n) throw new LedgerInvariantError(`${s.resource}: the venues delivered less than was paid out`);
  const lines: PostingLine[] = [
    { asset: s.to.code, chain: s.chain, book: venues, amount: -s.delivered },
    { asset: s.to.code, chain: s.chain, book: "available", amount: s.netOut },
    { asset: s.to.code, chain: s.chain, book: COUNTER.networkFees, amount: s.networkFee },
    { accountId: uow.deps.house[uow.ctx.livemode ? "live" : "test"], asset: s.to.code, chain: s.chain, book: "available", amount: platform },
  ];
  const posted = await uow.ledger.post({ accountId: s.accountId, resource: s.resource, transition: `${s.step}:out`, lines });
  return posted.isErr() ? err(posted.error) : ok(undefined);
}

/** Releases what the reservations still hold (cancel, expiry, a failed swap). */
export async function releaseReservations(uow: UnitOfWork, accountId: string, held: readonly HeldReservation[]): Promise<void> {
  for (const h of held) {
    const r = await uow.tx.ledger.lockReservation(accountId, h.id);
    if (r && r.status === "active") await uow.ledger.release(accountId, h.id);
  }
}

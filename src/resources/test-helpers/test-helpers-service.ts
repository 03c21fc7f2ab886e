import type { TestChain, TestClock, TestVenueHalt } from "./test-helper-objects";
import type { Out } from "../../api/response-schema";
import { err, ok, type Result } from "neverthrow";
import type { ModuleDeps, RequestContext } from "../../engine/context";
import { fail, type ApiError } from "../../errors";
import { toEnvelope, type EventEnvelope } from "../../events/envelope";
import type { BalanceObject } from "../../ledger/balances";
import { parseAmount } from "../../money/amount";
import { isChainSimulation, type ChainSimulationControl } from "../../ports/chain";
import { isManualClock } from "../../ports/clock";
import type { Json } from "../../ports/storage";
import type { Schema } from "../../validation/schema";
import { isoTime } from "../../validation/timestamp";
import type { WorkerRunner } from "../../workers/runner";
import { ALL_VENUES, withVenueHalt } from "./venue-halts";
import { applyOverrides } from "../events/sample-overrides";
import type { ChainWatchers } from "../payment-intents/chain-watchers";
import { PAYMENT_INTENTS, presentPaymentIntent, type PaymentIntentObject } from "../payment-intents/payment-intent-doc";
import {
  advanceChainSchema,
  advanceClockSchema,
  fundSchema,
  haltVenuesSchema,
  payPaymentIntentSchema,
  reorgChainSchema,
  triggerEventSchema,
  type AdvanceChainInput,
  type AdvanceClockInput,
  type FundInput,
  type HaltVenuesInput,
  type PayPaymentIntentInput,
  type ReorgChainInput,
  type TriggerEventInput,
} from "./test-helper-schemas";

export type TestChainObject = Out<typeof TestChain>;

export type TestClockObject = Out<typeof TestClock>;

export type TestVenueHaltObject = Out<typeof TestVenueHalt>;

/**
 * docs/decisions.md §7: what drives the simulated world, for test-mode accounts only (the same
 * helpers answer the `/v1/test_helpers/…` routes). Every helper refuses a live context with
 * `resource_missing`, as the routes answer live keys.
 */
export class TestHelpersService {
  constructor(
    private readonly deps: Pick<ModuleDeps, "assets" | "catalogue" | "chains" | "clock" | "ids" | "parse" | "storage" | "venues">,
    private readonly worker: WorkerRunner,
    private readonly watchers: ChainWatchers,
  ) {}

  /** Credits `amount` of `asset` on `chain` to the account's available balance. */
  async fund(ctx: RequestContext, input: FundInput): Promise<Result<BalanceObject, ApiError>> {
    const mode = testModeOnly(ctx);
    if (mode.isErr()) return err(mode.error);
    const parsed = fundSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { asset, chain, amount } = parsed.value;
    const onChain = this.deps.assets.chainFor(asset, chain.name, "chain");
    if (onChain.isErr()) return err(onChain.error);
    const units = parseAmount(amount, asset, "amount");
    if (units.isErr()) return err(units.error);
    return this.deps.storage.command(ctx, async (uow) => {
      const posted = await uow.ledger.fund(ctx.accountId, asset.code, chain.name, units.value, null);
      if (posted.isErr()) return err(posted.error);
      return ok(uow.balance(ctx.accountId, asset));
    });
  }

  /**
   * Moves the manual clock forward by `seconds`, stopping at every moment work falls due on the
   * way and running it, so an hour of retries happens in order. Refused on the system clock.
   */
  async advanceClock(ctx: RequestContext, input: AdvanceClockInput): Promise<Result<TestClockObject, ApiError>> {
    const mode = testModeOnly(ctx);
    if (mode.isErr()) return err(mode.error);
    const parsed = advanceClockSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const clock = this.deps.clock;
    if (!isManualClock(clock)) {
      return fail("parameter_invalid", "The clock can be advanced only when the engine runs on a manual clock", {
        param: "seconds",
      });
    }
    const target = clock.now() + parsed.value.seconds * 1000;
    let ran = await this.worker.runDue();
    for (;;) {
      const next = await this.deps.storage.read((tx) => tx.work.nextRunAt());
      if (next === null || next > target) break;
      const moved = next > clock.now();
      if (moved) clock.advance(next - clock.now());
      const step = await this.worker.runDue();
      ran += step;
      if (!moved && step === 0) break; // due but not claimable here (leased elsewhere): nothing to wait for
    }
    if (target > clock.now()) clock.advance(target - clock.now());
    ran += await this.worker.runDue();
    return ok({ object: "test_clock", now: isoTime(clock.now()), work_run: ran });
  }

  /**
   * Mines `blocks` blocks on a simulated chain now, in the calling account's view only
   * (docs/decisions.md): its deposits gain the confirmations at once; no other account's
   * transfer moves, and payouts follow the chain's clock (`advanceClock`).
   */
  advanceChain(ctx: RequestContext, chain: string, input: AdvanceChainInput): Promise<Result<TestChainObject, ApiError>> {
    return this.withSimulation(ctx, chain, input, advanceChainSchema, async (sim, { blocks }) => {
      await sim.advance(chain, blocks, ctx.accountId);
      return { object: "test_chain", chain, height: await sim.height(chain, ctx.accountId) };
    });
  }

  /**
   * Replaces the last `depth` blocks of a simulated chain in the calling account's view: its
   * deposits in them are gone. Another account's deposits and balance are never touched.
   */
  reorgChain(ctx: RequestContext, chain: string, input: ReorgChainInput): Promise<Result<TestChainObject, ApiError>> {
    return this.withSimulation(ctx, chain, input, reorgChainSchema, async (sim, { depth }) => {
      const reorganized = await sim.reorg(chain, depth, ctx.accountId);
      return { object: "test_chain", chain, height: await sim.height(chain, ctx.accountId), reorganized };
    });
  }

  /**
   * A payer sends `amount` to the intent's address on `chain`. A chain the intent does not list
   * receives at the intent's address of the same family (EVM chains share addresses), which is
   * how a payment on an unsupported chain happens. The payment is in the account's view of the
   * chain, and made once per Idempotency-Key (the deposit is keyed by it, so a retry after a
   * crash finds it and pays nothing); the answer is saved with the watch that follows it.
   */
  async payPaymentIntent(ctx: RequestContext, id: string, input: PayPaymentIntentInput): Promise<Result<PaymentIntentObject, ApiError>> {
    const mode = testModeOnly(ctx);
    if (mode.isErr()) return err(mode.error);
    const parsed = payPaymentIntentSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const stored = await this.deps.storage.read((tx) => PAYMENT_INTENTS.get(tx, ctx.accountId, id));
    if (!stored) return fail("resource_missing", `No such payment intent: ${id}`, { param: "id" });
    const doc = stored.doc;
    const chain = parsed.value.chain;
    const asset = parsed.value.asset ?? this.deps.assets.get(doc.asset)!;
    if (!asset.chains.includes(chain.name)) {
      return fail("chain_unsupported", `${asset.code} does not exist on ${chain.name}`, { param: "chain" });
    }
    const amount = parseAmount(parsed.value.amount, asset, "amount");
    if (amount.isErr()) return err(amount.error);
    const address =
      doc.depositAddresses[chain.name] ?? Object.entries(doc.depositAddresses).find(([c]) => this.deps.assets.chain(c)?.family === chain.family)?.[1];
    if (!address) {
      return fail("chain_unsupported", `The intent has no address a payer could use on ${chain.name}`, { param: "chain" });
    }
    const adapter = this.deps.chains.for(chain.name, false);
    if (!adapter || !isChainSimulation(adapter)) return fail("resource_missing", `${chain.name} is not simulated on this engine`, { param: "chain" });
    const key = ctx.idempotencyKey === null ? {} : { key: `${id}/${ctx.idempotencyKey}` };
    await adapter.pay({ chain: chain.name, asset: asset.code, address, amount: amount.value, owner: ctx.accountId, ...key });
    await this.watchers.poll(chain.name, false); // the payer's transfer is seen at once
    // the intent as it stands is the answer, saved (with the request's key) in the watch's transaction
    return this.deps.storage.command(ctx, async (uow) => {
      await this.watchers.watch(uow, chain.name, uow.now);
      const after = await PAYMENT_INTENTS.get(uow.tx, ctx.accountId, id);
      return ok(presentPaymentIntent(this.deps.assets, after?.doc ?? doc));
    });
  }

  /**
   * docs/decisions.md §10: `venue` (or `all`) refuses to execute this account's conversions for
   * `seconds` (0 lifts it): swaps fail with `swap.failed`, limit orders wait. Unknown venue
   * names are refused (`parameter_invalid`), as far as the venues' snapshots of the account's
   * pairs show them.
   */
  async haltVenues(ctx: RequestContext, input: HaltVenuesInput): Promise<Result<TestVenueHaltObject, ApiError>> {
    const mode = testModeOnly(ctx);
    if (mode.isErr()) return err(mode.error);
    const parsed = haltVenuesSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { venue, seconds } = parsed.value;
    if (venue !== ALL_VENUES && !(await this.knownVenue(venue))) {
      return fail("parameter_invalid", `No venue is named ${venue}; use a name of a quote's venues, or "all"`, { param: "venue" });
    }
    const now = this.deps.clock.now();
    const until = now + seconds * 1000;
    return this.deps.storage.command(ctx, async ({ tx }) => {
      const account = await tx.accounts.getAccount(ctx.accountId);
      if (!account) return fail("resource_missing", `No such account: ${ctx.accountId}`);
      await tx.accounts.updateAccountSettings(ctx.accountId, withVenueHalt(account.settings, venue, until, now));
      return ok({ object: "test_venue_halt" as const, venue, halted_until: seconds > 0 ? isoTime(until) : null });
    });
  }

  /** Whether any venue adapter shows a venue of this name for some pair of the registry's assets. */
  private async knownVenue(venue: string): Promise<boolean> {
    const codes = this.deps.assets.list().map((a) => a.code);
    for (const from of codes) {
      for (const to of codes) {
        if (from !== to && (await this.deps.venues.for(false).snapshots(from, to)).some((s) => s.venue === venue)) return true;
      }
    }
    return false;
  }

  /**
   * Emits one event of `type` about a sample object (fresh ids, `sample: true`), delivered to the
   * account's endpoints like any other event; nothing is created and no value moves.
   */
  async triggerEvent(ctx: RequestContext, input: TriggerEventInput): Promise<Result<EventEnvelope, ApiError>> {
    const mode = testModeOnly(ctx);
    if (mode.isErr()) return err(mode.error);
    const parsed = triggerEventSchema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const { type, overrides } = parsed.value;
    // the event is the answer, saved with the request's key in the transaction that emits it
    return this.deps.storage.command(ctx, async (uow) => {
      const sample = sampleEvent(this.deps, type, uow.now);
      const object = overrides ? applyOverrides(sample, overrides) : ok(sample);
      return object.map((o) => toEnvelope(uow.emitted(uow.emit(type, o as Json))!));
    });
  }

  private async withSimulation<I>(
    ctx: RequestContext,
    chain: string,
    input: unknown,
    schema: Schema<I, unknown>,
    act: (sim: ChainSimulationControl, input: I) => Promise<TestChainObject>,
  ): Promise<Result<TestChainObject, ApiError>> {
    const mode = testModeOnly(ctx);
    if (mode.isErr()) return err(mode.error);
    const known = this.deps.assets.knownChain(chain, "chain");
    if (known.isErr()) return err(known.error);
    const parsed = schema.parse(input, "", this.deps.parse);
    if (parsed.isErr()) return err(parsed.error);
    const adapter = this.deps.chains.for(chain, false);
    if (!adapter || !isChainSimulation(adapter)) {
      return fail("resource_missing", `${chain} is not simulated on this engine`, { param: "chain" });
    }
    const result = await act(adapter, parsed.value);
    // Deposits see the new chain at once (payouts at their next poll, a block time later).
    await this.watchers.poll(chain, false);
    return ok(result);
  }
}

function testModeOnly(ctx: RequestContext): Result<true, ApiError> {
  return ctx.livemode ? fail("resource_missing", "Test helpers exist only in test mode") : ok(true);
}

/**
 * A sample object for an event of `type` (fresh ids, `sample: true`), built by the module that
 * declares the type; a snapshot only: nothing is created and no value moves.
 */
export function sampleEvent(deps: Pick<ModuleDeps, "catalogue" | "ids" | "assets">, type: string, now: number): object {
  const definition = deps.catalogue.event(type);
  if (!definition) throw new TypeError(`event type ${type} is not in the engine's catalogue`);
  return { ...definition.sample({ ids: deps.ids, assets: deps.assets, now }), sample: true };
}

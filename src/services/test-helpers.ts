import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../errors";
import type { BalanceObject } from "../ledger/balances";
import { parseAmount } from "../money/amount";
import { isChainSimulation, type ChainSimulationControl } from "../ports/chain";
import { isManualClock } from "../ports/clock";
import { s } from "../validation/schema";
import { isoTime } from "../validation/timestamp";
import type { WorkerRunner } from "../workers/runner";
import type { ChainWatchers } from "./payment-intents/chain-watchers";
import { runCommand } from "./command";
import type { EngineDeps, RequestContext } from "./context";

export const fundSchema = s.object({
  asset: s.asset(),
  chain: s.chain(),
  amount: s.amount(),
});

export const advanceClockSchema = s.object({
  seconds: s.integer({ min: 0, max: 10 * 365 * 86_400 }),
});

export const advanceChainSchema = s.object({ blocks: s.integer({ min: 1, max: 100_000 }) });
export const reorgChainSchema = s.object({ depth: s.integer({ min: 1, max: 1_000 }) });

export interface TestChainObject {
  object: "test_chain";
  chain: string;
  height: number;
  /** Transfers the reorganisation moved out of the replaced blocks (reorg only). */
  reorganized?: number;
}

export interface TestClockObject {
  object: "test_clock";
  now: string;
  /** Due work items run while time moved. */
  work_run: number;
}

/** DECISIONS.md §7: routes that drive the simulated world, for test-mode accounts only. */
export class TestHelpersService {
  constructor(
    private readonly deps: EngineDeps,
    private readonly worker: WorkerRunner,
  ) {}

  /** Credits `amount` of `asset` on `chain` to the account's available balance. */
  async fund(ctx: RequestContext, input: unknown): Promise<Result<BalanceObject, ApiError>> {
    const mode = testModeOnly(ctx);
    if (mode.isErr()) return err(mode.error);
    const parsed = fundSchema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const { asset, chain, amount } = parsed.value;
    const onChain = this.deps.assets.chainFor(asset, chain.name, "chain");
    if (onChain.isErr()) return err(onChain.error);
    const units = parseAmount(amount, asset, "amount");
    if (units.isErr()) return err(units.error);
    return runCommand(this.deps, ctx, async (uow) => {
      const posted = await uow.ledger.fund(ctx.accountId, asset.code, chain.name, units.value, null);
      if (posted.isErr()) return err(posted.error);
      return ok(uow.balance(ctx.accountId, asset));
    });
  }

  /**
   * Moves the manual clock forward by `seconds`, stopping at every moment work falls due on the
   * way and running it, so an hour of retries happens in order. Refused on the system clock.
   */
  async advanceClock(ctx: RequestContext, input: unknown): Promise<Result<TestClockObject, ApiError>> {
    const mode = testModeOnly(ctx);
    if (mode.isErr()) return err(mode.error);
    const parsed = advanceClockSchema.parse(input, "", { assets: this.deps.assets });
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
      const next = await this.deps.storage.transaction((tx) => tx.work.nextRunAt());
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
}

/**
 * Test helpers on simulated chains (DECISIONS.md §7): mine blocks now, or replace the tip.
 * Deposits to payment intents are read at once; payout tracking sees the new chain at its next
 * poll (a block time later on the engine's clock).
 */
export class ChainHelpersService {
  constructor(
    private readonly deps: EngineDeps,
    private readonly watchers: ChainWatchers,
  ) {}

  advance(ctx: RequestContext, chain: string, input: unknown): Promise<Result<TestChainObject, ApiError>> {
    return this.withSimulation(ctx, chain, input, advanceChainSchema, (sim, { blocks }) => {
      sim.advance(chain, blocks);
      return { object: "test_chain", chain, height: sim.height(chain) };
    });
  }

  reorg(ctx: RequestContext, chain: string, input: unknown): Promise<Result<TestChainObject, ApiError>> {
    return this.withSimulation(ctx, chain, input, reorgChainSchema, (sim, { depth }) => {
      const reorganized = sim.reorg(chain, depth);
      return { object: "test_chain", chain, height: sim.height(chain), reorganized };
    });
  }

  private async withSimulation<I>(
    ctx: RequestContext,
    chain: string,
    input: unknown,
    schema: { parse: (v: unknown, p: string, c: { assets: EngineDeps["assets"] }) => Result<I, ApiError> },
    act: (sim: ChainSimulationControl, input: I) => TestChainObject,
  ): Promise<Result<TestChainObject, ApiError>> {
    const mode = testModeOnly(ctx);
    if (mode.isErr()) return err(mode.error);
    const known = this.deps.assets.knownChain(chain, "chain");
    if (known.isErr()) return err(known.error);
    const parsed = schema.parse(input, "", { assets: this.deps.assets });
    if (parsed.isErr()) return err(parsed.error);
    const adapter = this.deps.chains.any(chain);
    if (!adapter || !isChainSimulation(adapter)) {
      return fail("resource_missing", `${chain} is not simulated on this engine`, { param: "chain" });
    }
    const result = act(adapter, parsed.value);
    // Deposits see the new chain at once (payouts at their next poll, a block time later).
    await this.watchers.poll(chain);
    return ok(result);
  }
}

function testModeOnly(ctx: RequestContext): Result<true, ApiError> {
  return ctx.livemode ? fail("resource_missing", "Test helpers exist only in test mode") : ok(true);
}

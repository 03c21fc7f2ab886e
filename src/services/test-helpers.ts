import { err, ok, type Result } from "neverthrow";
import { ApiError, fail } from "../errors";
import type { BalanceObject } from "../ledger/balances";
import { parseAmount } from "../money/amount";
import { isManualClock } from "../ports/clock";
import { s } from "../validation/schema";
import { isoTime } from "../validation/timestamp";
import type { WorkerRunner } from "../workers/runner";
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

function testModeOnly(ctx: RequestContext): Result<true, ApiError> {
  return ctx.livemode ? fail("resource_missing", "Test helpers exist only in test mode") : ok(true);
}

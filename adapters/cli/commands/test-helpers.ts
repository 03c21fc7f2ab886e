import type { Command } from "commander";
import type { PayrailClient } from "../api-client";
import { CliError } from "../io";
import { jsonLine } from "../output";
import type { CliCommand, CommandContext } from "../program";

function wholeNumber(name: string) {
  return (text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} takes a whole number, got ${text}`, 2);
    return n;
  };
}

/** Runs one test helper call and prints its answer (one JSON line with `--json`, else indented). */
async function helper(ctx: CommandContext, cmd: Command, json: boolean | undefined, call: (client: PayrailClient) => Promise<unknown>): Promise<void> {
  const answer = await call(ctx.client(cmd));
  ctx.io.stdout.write(json ? jsonLine(answer) : `${JSON.stringify(answer, null, 2)}\n`);
}

/**
 * `payrail test fund|pay|advance|reorg|halt|clock`: the test helpers of docs/decisions.md §7 and §10
 * (`/v1/test_helpers/…`, test keys only) as commands.
 */
export const testHelpersCommand: CliCommand = {
  register(program, ctx) {
    const test = program.command("test").description("drive the simulated world of test mode: fund, pay an intent, mine, reorg, halt venues, move the clock");
    test
      .command("fund")
      .description("credit test funds to the available balance (POST /v1/test_helpers/balances/fund)")
      .argument("<amount>", "a decimal amount, e.g. 100")
      .argument("<asset>", "e.g. USDC")
      .requiredOption("--chain <chain>", "the chain the funds are on, e.g. base")
      .option("--json", "one line of JSON")
      .action((amount: string, asset: string, o: { chain: string; json?: boolean }, cmd: Command) =>
        helper(ctx, cmd, o.json, (c) => c.post("/v1/test_helpers/balances/fund", { amount, asset, chain: o.chain })),
      );
    test
      .command("pay")
      .description("a payer sends to a payment intent's deposit address (POST /v1/test_helpers/payment_intents/{id}/pay)")
      .argument("<intent>", "pi_…")
      .argument("<amount>", "what the payer sends")
      .requiredOption("--chain <chain>", "the chain the payer sends on")
      .option("--asset <asset>", "what the payer sends (default the intent's asset)")
      .option("--json", "one line of JSON")
      .action((intent: string, amount: string, o: { chain: string; asset?: string; json?: boolean }, cmd: Command) =>
        helper(ctx, cmd, o.json, (c) =>
          c.post(`/v1/test_helpers/payment_intents/${encodeURIComponent(intent)}/pay`, { amount, chain: o.chain, ...(o.asset ? { asset: o.asset } : {}) }),
        ),
      );
    test
      .command("advance")
      .description("mine blocks on a simulated chain now (POST /v1/test_helpers/chains/{chain}/advance)")
      .argument("<chain>", "e.g. base")
      .option("--blocks <n>", "how many blocks (default 1)", wholeNumber("--blocks"), 1)
      .option("--json", "one line of JSON")
      .action((chain: string, o: { blocks: number; json?: boolean }, cmd: Command) =>
        helper(ctx, cmd, o.json, (c) => c.post(`/v1/test_helpers/chains/${encodeURIComponent(chain)}/advance`, { blocks: o.blocks })),
      );
    test
      .command("reorg")
      .description("replace the last blocks of a simulated chain (POST /v1/test_helpers/chains/{chain}/reorg)")
      .argument("<chain>", "e.g. base")
      .option("--depth <n>", "how many blocks are replaced (default 1)", wholeNumber("--depth"), 1)
      .option("--json", "one line of JSON")
      .action((chain: string, o: { depth: number; json?: boolean }, cmd: Command) =>
        helper(ctx, cmd, o.json, (c) => c.post(`/v1/test_helpers/chains/${encodeURIComponent(chain)}/reorg`, { depth: o.depth })),
      );
    test
      .command("halt")
      .description("make a venue (or all) refuse to execute: swaps fail, limit orders wait (POST /v1/test_helpers/venues/halt)")
      .argument("<venue>", 'a venue name as quotes show it, or "all"')
      .option("--seconds <n>", "how long (default 60; 0 lifts the halt)", wholeNumber("--seconds"), 60)
      .option("--json", "one line of JSON")
      .action((venue: string, o: { seconds: number; json?: boolean }, cmd: Command) =>
        helper(ctx, cmd, o.json, (c) => c.post("/v1/test_helpers/venues/halt", { venue, seconds: o.seconds })),
      );
    test
      .command("clock")
      .description("move the manual clock forward, running due work on the way (a host on the manual clock only)")
      .argument("<seconds>", "how far", wholeNumber("<seconds>"))
      .option("--json", "one line of JSON")
      .action((seconds: number, o: { json?: boolean }, cmd: Command) => helper(ctx, cmd, o.json, (c) => c.post("/v1/test_helpers/clock/advance", { seconds })));
  },
};

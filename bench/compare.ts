import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { createRound, fundedCallers } from "./payouts";
import { inTurns, type Side } from "./rounds";
import { dropSchema } from "./schemas";

/**
 * `DATABASE_URL=… npx tsx bench/compare.ts <tree> <tree> [rounds] [per-round]`: the engine CPU
 * per payout create of two checkouts of payrail (two `git worktree`s, each with its
 * `node_modules`), measured in one process per comparison, in alternating rounds, so that what
 * the machine does meanwhile falls on both alike. On a shared VM the same code's CPU per create
 * swings by half between runs minutes apart (docs/performance.md): separate runs cannot tell a
 * 5 % change from that; alternating rounds in one process narrow it to a few percent.
 *
 * Each tree's engine has its own schema and 4 callers, each on an account of its own (the
 * payouts bench's many-accounts case, the one bound by the engine's CPU); both first create
 * 1,000 payouts untimed, then take turns for `rounds` rounds of `per-round` creates (default 8 of
 * 500), the first tree first in even rounds and second in odd ones. The engine built first in a
 * process ran a tenth or more cheaper than the one built second, whichever tree it was, so the
 * comparison runs twice, once in each order, each in a child process of its own. Printed: for
 * each run, creates/s and engine CPU per create (`process.cpuUsage`, the process's, over that
 * tree's rounds) and the second tree's CPU over the first's; then both runs' ratios averaged
 * (geometrically).
 */
const CLIENTS = 4;

interface Contender extends Side {
  tree: string;
  close(): Promise<void>;
}

/**
 * An engine built from `tree`'s own modules (its adapters and engine), its callers ready. The
 * callers and their creates are this checkout's (`fundedCallers`, `createRound`): they use only
 * the engine's public API, which both trees share.
 */
async function contender(url: string, tree: string, tag: string): Promise<Contender> {
  const load = (path: string) => import(resolve(tree, path));
  const [{ ManualClock }, { connectPostgres }, { createEngine }, { devPorts }] = await Promise.all([
    load("adapters/clock/index.ts"),
    load("adapters/postgres/index.ts"),
    load("src/modules.ts"),
    load("adapters/dev/index.ts"),
  ]);
  const schema = `bench_compare_${tag}_${process.pid}`;
  const engine = await createEngine({ storage: await connectPostgres(url, { schema, maxConnections: CLIENTS }), ...devPorts({ clock: new ManualClock() }) });
  const callers = await fundedCallers(engine, CLIENTS);
  let rounds = 0;
  return {
    tree,
    round: (count) => createRound(engine, callers, `compare-${rounds++}`, count),
    async close() {
      await engine.close();
      await dropSchema(url, schema);
    },
  };
}

/** One process: both trees' engines, built in the order given, in alternating rounds; yields each's CPU per create. */
async function measure(url: string, trees: string[], rounds: number, perRound: number): Promise<number[]> {
  const both: Contender[] = [];
  try {
    for (const [i, tree] of trees.entries()) both.push(await contender(url, tree, String(i)));
    for (const c of both) await c.round(1_000);
    const timed = await inTurns(both, rounds, perRound);
    const creates = rounds * perRound;
    for (const [i, c] of both.entries()) {
      const rate = ((creates / timed[i]!.wallMs) * 1000).toFixed(0);
      console.log(`  ${c.tree.padEnd(24)} ${rate.padStart(5)} creates/s   engine CPU ${(timed[i]!.cpuMs / creates).toFixed(3)} ms a create`);
    }
    return timed.map((t) => t.cpuMs / creates);
  } finally {
    for (const c of both) await c.close();
  }
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  const [first, second, rounds = "8", perRound = "500"] = process.argv.slice(2);
  if (!url || !first || !second) {
    console.error("usage: DATABASE_URL=… npx tsx bench/compare.ts <tree> <tree> [rounds] [per-round]");
    process.exit(2);
  }
  const child = process.env.BENCH_COMPARE_ORDER;
  if (child) {
    const trees = child === "ab" ? [first, second] : [second, first];
    const cpu = await measure(url, trees, Number(rounds), Number(perRound));
    console.log(`${RESULT}${JSON.stringify(child === "ab" ? cpu : [...cpu].reverse())}`);
    return;
  }
  // each order in a process of its own (the engine built first runs cheaper), the ratios averaged
  const ratios: number[] = [];
  for (const order of ["ab", "ba"]) {
    console.log(order === "ab" ? `${first} built first:` : `${second} built first:`);
    const run = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, ...process.argv.slice(2)], {
      env: { ...process.env, BENCH_COMPARE_ORDER: order },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines = run.stdout.split("\n");
    for (const line of lines) if (line && !line.startsWith(RESULT)) console.log(line);
    const result = lines.find((line) => line.startsWith(RESULT));
    if (run.status !== 0 || !result) throw new Error(`the ${order} run failed (exit ${run.status})`);
    const [a, b] = JSON.parse(result.slice(RESULT.length)) as [number, number];
    ratios.push(b / a);
    console.log(`  second / first, CPU a create: ${(b / a).toFixed(3)}`);
  }
  console.log(`second / first, CPU a create, both orders: ${Math.sqrt(ratios[0]! * ratios[1]!).toFixed(3)}`);
}

/** How a child's line of figures begins. */
const RESULT = "compare-result:";

await main();
process.exit(0);

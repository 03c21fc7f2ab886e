import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { ManualClock } from "../adapters/clock";
import { devPorts } from "../adapters/dev";
import { connectPostgres } from "../adapters/postgres";
import { createEngine } from "../src/modules";
import { createPayout, fundedCallers } from "./payouts";
import type { Figure } from "./table";
import { dropSchema } from "./schemas";

/**
 * Scale-out: engine processes are stateless and share one PostgreSQL database, so a second
 * process should add throughput. Single payouts created per second (each its own Idempotency-Key)
 * by one process, then by two at once on the same schema, then by three; each process has CLIENTS callers, each
 * paying from an account of its own (merchants side by side: one account's payouts take turns on
 * its balance rows whatever the number of processes). Then every payout is checked to have been
 * created once and its leg sent once. Each process is `node bench/scale-out.ts --child …`,
 * started, set up and warmed up (`WARM_UP` creates), then released together.
 */
const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 10);
const CLIENTS = Number(process.env.BENCH_SCALE_CLIENTS ?? 4);
/** Creates each process makes before the timed window. */
const WARM_UP = Number(process.env.BENCH_SCALE_WARM_UP ?? 1000);
const SELF = fileURLToPath(import.meta.url);

interface ChildArgs {
  url: string;
  schema: string;
  prefix: string;
}

/** One engine process: warms up, says `ready`, creates payouts for SECONDS after `go`, prints its count. */
async function child(args: ChildArgs): Promise<void> {
  const storage = await connectPostgres(args.url, { schema: args.schema, maxConnections: CLIENTS + 2 });
  const engine = await createEngine({ storage, ...devPorts({ clock: new ManualClock() }) });
  const callers = await fundedCallers(engine, CLIENTS, { prefix: args.prefix, amount: "100000000" });
  let n = 0;
  const create = async (c: number) => {
    const { ctx, recipients } = callers[c]!;
    const key = `${args.prefix}-${n++}`;
    await createPayout(engine, ctx, key, recipients[n % recipients.length]!);
  };
  // a long-running server's steady state: compiled code and warm caches before the timed window
  // (as the payouts bench), the callers at once as they will be timed
  let warmed = 0;
  await Promise.all(
    callers.map(async (_, c) => {
      while (warmed++ < WARM_UP) await create(c);
    }),
  );
  const lines = createInterface({ input: process.stdin });
  process.stdout.write("ready\n");
  for await (const line of lines) if (line === "go") break;
  let created = 0;
  const cpu = process.cpuUsage();
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    callers.map(async (_, c) => {
      while (performance.now() < end) {
        await create(c);
        created++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  process.stdout.write(`created ${created} cpu ${(used.user + used.system) / 1000}\n`);
  lines.close();
  await engine.close();
}

/**
 * CPU time of the whole machine so far, every core's summed: busy and all. From /proc/stat on
 * Linux (loopback traffic's softirq and a hypervisor's steal count as busy: no process can use
 * them), else `os.cpus()`.
 */
function machineCpu(): { busy: number; all: number } {
  const line = existsSync("/proc/stat") ? readFileSync("/proc/stat", "utf8").split("\n")[0]! : "";
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
  if (line.startsWith("cpu ") && steal !== undefined) {
    const busy = user! + nice! + system! + irq! + softirq! + steal;
    return { busy, all: busy + idle! + iowait! };
  }
  let busy = 0;
  let all = 0;
  for (const { times } of cpus()) {
    const sum = times.user + times.nice + times.sys + times.irq + times.idle;
    all += sum;
    busy += sum - times.idle;
  }
  return { busy, all };
}

/** A phase of the bench: payouts a second, the machine's cores busy meanwhile, the engine processes' own CPU a payout (ms). */
interface Phase {
  perSecond: number;
  busyCores: number;
  engineMs: number;
}

/**
 * Runs `count` processes at once; resolves with the payouts they created per second in all, and
 * how many of the machine's cores were busy meanwhile (the processes, the database, the kernel).
 */
async function run(count: number, args: Omit<ChildArgs, "prefix">, round: string): Promise<Phase> {
  const children = Array.from({ length: count }, (_, i) => {
    const proc = spawn(process.execPath, ["--import", "tsx", SELF, "--child", JSON.stringify({ ...args, prefix: `${round}-${i}` })], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const out = createInterface({ input: proc.stdout! });
    const lines: string[] = [];
    const waiters: ((line: string) => void)[] = [];
    out.on("line", (line) => (waiters.length ? waiters.shift()!(line) : lines.push(line)));
    const next = () => new Promise<string>((resolve) => (lines.length ? resolve(lines.shift()!) : waiters.push(resolve)));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
    return { proc, next, exited };
  });
  for (const c of children) if ((await c.next()) !== "ready") throw new Error("a child did not get ready");
  const cpuBefore = machineCpu();
  for (const c of children) c.proc.stdin!.write("go\n");
  let created = 0;
  let engineMs = 0;
  for (const c of children) {
    const line = await c.next();
    const m = /^created (\d+) cpu ([\d.]+)$/.exec(line);
    if (!m) throw new Error(`a child said ${line}`);
    created += Number(m[1]);
    engineMs += Number(m[2]);
  }
  const cpuAfter = machineCpu();
  const busyCores = ((cpuAfter.busy - cpuBefore.busy) / (cpuAfter.all - cpuBefore.all)) * cpus().length;
  for (const c of children) {
    c.proc.stdin!.end();
    if ((await c.exited) !== 0) throw new Error("a child failed");
  }
  return { perSecond: created / SECONDS, busyCores, engineMs: engineMs / created };
}

export async function benchScaleOut(): Promise<Figure[]> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log("scale-out: set DATABASE_URL (two engine processes on one PostgreSQL server)");
    return [];
  }
  const schema = `bench_scale_${process.pid}`;
  try {
    const args = { url, schema };
    console.log(`scale-out: single payouts created by 1, 2 and 3 engine processes on one PostgreSQL database, ${CLIENTS} callers each, ${SECONDS} s`);
    const single = await run(1, args, "one");
    const double = await run(2, args, "two");
    const triple = await run(3, args, "three");
    const [one, two, three] = [single.perSecond, double.perSecond, triple.perSecond];
    // the machine's CPU a payout costs (processes, database, kernel), and what 1.6 × would allow
    const cores = cpus().length;
    const cpuPerPayout = (r: Phase) => (r.busyCores / r.perSecond) * 1000;
    const allowed = (cores / (1.6 * one)) * 1000;
    // no double work: every payout once, its one leg sent once
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const { rows } = await pool.query(
      `SELECT count(*) AS payouts,
              count(*) FILTER (WHERE data->'legs'->0->>'status' = 'broadcast') AS broadcast,
              count(DISTINCT data->'legs'->0->'machine'->>'txHash') AS hashes
       FROM "${schema}".resources WHERE kind = 'payout'`,
    );
    await pool.end();
    const { payouts, broadcast, hashes } = rows[0] as Record<string, string>;
    console.log(
      `  1 process ${one.toFixed(0)}/s, 2 processes ${two.toFixed(0)}/s (${(two / one).toFixed(2)} ×), 3 processes ${three.toFixed(0)}/s (${(three / one).toFixed(2)} ×); ` +
        `${payouts} payouts, ${broadcast} with their leg broadcast, ${hashes} distinct transaction hashes`,
    );
    const busy = (r: Phase) => `${r.busyCores.toFixed(2)} (${cpuPerPayout(r).toFixed(2)} ms a payout, ${r.engineMs.toFixed(2)} of it the engine processes')`;
    console.log(`  of ${cores} cores busy: 1 process ${busy(single)}, 2 processes ${busy(double)}, 3 processes ${busy(triple)}`);
    console.log(`  1.6 × one process on ${cores} cores allows at most ${allowed.toFixed(2)} ms of the machine's CPU a payout`);
    if (payouts !== broadcast || payouts !== hashes) throw new Error("a payout was not sent exactly once");
    return [
      {
        name: `single payouts created, 2 processes (${CLIENTS} callers each)`,
        store: "postgres",
        value: two,
        unit: "/s",
        floor: { value: one, what: "1 process" },
        target: { ratio: { min: 1.6 } },
      },
      {
        name: `single payouts created, 3 processes (${CLIENTS} callers each)`,
        store: "postgres",
        value: three,
        unit: "/s",
        floor: { value: one, what: "1 process" },
      },
      {
        // on a machine whose cores are all busy, two processes gain only as this drops
        name: "machine CPU per payout, 2 processes (every core's time)",
        store: "postgres",
        value: cpuPerPayout(double),
        unit: "ms",
        floor: { value: cpuPerPayout(single), what: "1 process" },
      },
    ];
  } finally {
    await dropSchema(url, schema);
  }
}

if (process.argv[2] === "--child") await child(JSON.parse(process.argv[3]!) as ChildArgs);

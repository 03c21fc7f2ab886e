import pg from "pg";
import { ManualClock } from "../adapters/clock";
import { devPorts } from "../adapters/dev";
import { connectPostgres, type PostgresStorage } from "../adapters/postgres";
import { runCommand } from "../src/engine/command";
import { systemContext } from "../src/engine/context";
import { engineDeps } from "../src/engine/engine";
import { createEngine } from "../src/modules";
import type { EventRecord } from "../src/ports/storage";
import type { Figure } from "./table";

/**
 * The partitioned layout (docs/scaling.md) beside the plain one on the PostgreSQL server: ledger
 * reservations per second (balance locks, entries, a reservation, an event, across the hash
 * partitions), and the retention sweep of a week of events past 7 days (row deletes against
 * dropping day partitions). Needs DATABASE_URL. `BENCH_OPS` reservations (default 1000),
 * `BENCH_EVENTS_PER_DAY` events on each of 10 days (default 10,000), `BENCH_PARTITIONS` (default 8).
 */
const OPS = Number(process.env.BENCH_OPS ?? 1000);
const PER_DAY = Number(process.env.BENCH_EVENTS_PER_DAY ?? 10_000);
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 8);
const CLIENTS = 4;
const DAY = 86_400_000;

async function reservations(storage: PostgresStorage): Promise<number> {
  const engine = await createEngine({ storage, ...devPorts({ clock: new ManualClock() }) });
  try {
    const usdc = engine.assets.get("USDC")!;
    // a few accounts, so the work spreads over the partitions as many customers' would
    const accounts = await Promise.all(Array.from({ length: 8 }, (_, i) => engine.accounts.create({ name: `bench ${i}` })));
    for (const a of accounts)
      (await engine.testHelpers.fund(systemContext(a.id, false), { asset: "USDC", chain: "base", amount: "100000000" }))._unsafeUnwrap();
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < OPS) {
          const i = next++;
          const account = accounts[i % accounts.length]!.id;
          (
            await runCommand(engineDeps(engine), systemContext(account, false), (uow) =>
              uow.ledger.reserve({ accountId: account, asset: usdc, chain: "base", amount: 1_000n, resource: `lo_${i}` }),
            )
          )._unsafeUnwrap();
        }
      }),
    );
    return OPS / ((performance.now() - start) / 1000);
  } finally {
    await engine.close(); // closes the storage too
  }
}

/**
 * Milliseconds the retention sweep takes to remove 7 of 10 days of events, as maintenance runs it,
 * the events written day by day with a sweep after each (as the hourly maintenance does).
 */
async function retention(storage: PostgresStorage): Promise<number> {
  const t0 = Date.UTC(2026, 0, 1);
  for (let d = 0; d < 10; d++) {
    const events: EventRecord[] = Array.from({ length: PER_DAY }, (_, i) => ({
      accountId: `acct_${i % 16}`,
      id: `evt_${String(d * PER_DAY + i).padStart(26, "0")}`,
      type: "balance.updated",
      created: t0 + d * DAY + Math.floor((i * DAY) / PER_DAY),
      livemode: false,
      data: { object: { asset: "USDC", available: "1.5" } },
      request: { id: null, idempotency_key: null },
    }));
    await storage.transaction((tx) => tx.events.insert(events));
    // the hourly sweep, which removes nothing yet (and in the partitioned layout makes the next days)
    await storage.transaction((tx) => tx.events.pruneBefore(t0 - DAY, 5_000));
  }
  const start = performance.now();
  for (let more = true; more; ) {
    const n = await storage.transaction((tx) => tx.events.pruneBefore(t0 + 7 * DAY, 5_000));
    more = n >= 5_000;
  }
  return performance.now() - start;
}

export async function benchLayout(): Promise<Figure[]> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log("layout: skipped (needs DATABASE_URL)");
    return [];
  }
  const figures: Figure[] = [];
  for (const partitions of [0, PARTITIONS]) {
    const store = partitions ? `postgres, ${partitions} partitions` : "postgres";
    const schema = `bench_layout_${process.pid}_${partitions}`;
    const storage = await connectPostgres(url, { schema, maxConnections: CLIENTS + 2, ...(partitions ? { partitions } : {}) });
    try {
      const reserves = await reservations(storage);
      const storage2 = await connectPostgres(url, { schema: `${schema}_ev`, maxConnections: 2, ...(partitions ? { partitions } : {}) });
      await storage2.init();
      const sweep = await retention(storage2).finally(() => storage2.close());
      console.log(`${store.padEnd(26)} reservations/s ${reserves.toFixed(0).padStart(6)}   7 days of ${PER_DAY}/day events pruned in ${sweep.toFixed(0)} ms`);
      figures.push(
        { name: "ledger reservations", store, value: reserves, unit: "/s" },
        { name: `retention of 7 × ${PER_DAY} events`, store, value: sweep, unit: "ms" },
      );
    } finally {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_ev" CASCADE`);
      await admin.end();
    }
  }
  return figures;
}

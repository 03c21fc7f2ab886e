import pg from "pg";
import { ManualClock } from "../adapters/clock";
import { createHttpApp } from "../adapters/http";
import { createMemoryStorage } from "../adapters/memory";
import { connectPostgres, openPGlite } from "../adapters/postgres";
import { engineDeps } from "../src/engine/engine";
import { createEngine } from "../src/modules";
import type { StorageAdapter } from "../src/ports/storage";
import { runCommand } from "../src/engine/command";
import { systemContext } from "../src/engine/context";
import { devPorts } from "../adapters/dev";
import type { Figure } from "./table";

/**
 * Ledger throughput: reservations (lock balance rows, two entries, a reservation row, one
 * balance.updated event, commit) and funding through the HTTP binding, on each storage, with a
 * raw-SQL baseline of the same row work on the PostgreSQL server.
 */
const OPS = Number(process.env.BENCH_OPS ?? 2000);
const CLIENTS = 4;

async function timed(ops: number, clients: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < ops) await op(next++);
    }),
  );
  return ops / ((performance.now() - start) / 1000);
}

async function benchStorage(name: string, storage: StorageAdapter): Promise<{ lines: string[]; reserves: number }> {
  const engine = await createEngine({ storage, ...devPorts({ clock: new ManualClock() }) });
  try {
    const account = await engine.accounts.create({ name: "bench" });
    const key = (await engine.accounts.createApiKey(account.id))._unsafeUnwrap().key;
    const ctx = systemContext(account.id, false);
    (await engine.testHelpers.fund(ctx, { asset: "USDC", chain: "base", amount: "100000000" }))._unsafeUnwrap();
    const usdc = engine.assets.get("USDC")!;
    const reserves = await timed(OPS, CLIENTS, (i) =>
      runCommand(engineDeps(engine), ctx, (uow) =>
        uow.ledger.reserve({ accountId: account.id, asset: usdc, chain: "base", amount: 1_000n, resource: `lo_${i}` }),
      ).then((r) => r._unsafeUnwrap()),
    );
    const app = createHttpApp(engine);
    const body = JSON.stringify({ asset: "USDC", chain: "base", amount: "1" });
    const funds = await timed(OPS, CLIENTS, async (i) => {
      const res = await app.request("/v1/test_helpers/balances/fund", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "idempotency-key": `bench-${i}`, "content-type": "application/json" },
        body,
      });
      if (res.status !== 200) throw new Error(`fund answered ${res.status}`);
    });
    return {
      lines: [`${name.padEnd(10)} reservations/s ${reserves.toFixed(0).padStart(6)}   HTTP fund with Idempotency-Key/s ${funds.toFixed(0).padStart(6)}`],
      reserves,
    };
  } finally {
    await engine.close();
  }
}

/** The same row work as a reservation, hand-written: lock, two entries, balance update, event. */
async function rawBaseline(url: string): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: CLIENTS });
  const schema = `bench_raw_${process.pid}`;
  try {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema};
      CREATE TABLE ${schema}.balances (k text PRIMARY KEY, amount numeric NOT NULL CHECK (amount >= 0));
      CREATE TABLE ${schema}.entries (id text PRIMARY KEY, k text, amount numeric);
      CREATE TABLE ${schema}.events (id text PRIMARY KEY, data json);
      INSERT INTO ${schema}.balances VALUES ('available', 100000000000), ('reserved', 0);`);
    const rate = await timed(OPS, CLIENTS, async (i) => {
      const c = await pool.connect();
      try {
        await c.query("BEGIN");
        await c.query(`SELECT * FROM ${schema}.balances WHERE k IN ('available', 'reserved') ORDER BY k FOR UPDATE`);
        await c.query(`INSERT INTO ${schema}.entries SELECT * FROM unnest($1::text[], $2::text[], $3::numeric[])`, [
          [`a${i}`, `r${i}`],
          ["available", "reserved"],
          ["-1000", "1000"],
        ]);
        await c.query(`UPDATE ${schema}.balances b SET amount = b.amount + d.delta FROM unnest($1::text[], $2::numeric[]) AS d(k, delta) WHERE b.k = d.k`, [
          ["available", "reserved"],
          ["-1000", "1000"],
        ]);
        await c.query(`INSERT INTO ${schema}.events VALUES ($1, $2)`, [`e${i}`, JSON.stringify({ available: "1" })]);
        await c.query("COMMIT");
      } finally {
        c.release();
      }
    });
    console.log(`${"raw SQL".padEnd(10)} reservations/s ${rate.toFixed(0).padStart(6)}   (same row work, hand-written, same pool size)`);
    return rate;
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
}

export async function benchLedger(): Promise<Figure[]> {
  console.log(`ledger: ${OPS} operations per row, ${CLIENTS} concurrent clients`);
  for (const line of (await benchStorage("memory", createMemoryStorage())).lines) console.log(line);
  for (const line of (await benchStorage("pglite", await openPGlite())).lines) console.log(line);
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log("postgres   (set DATABASE_URL to measure a PostgreSQL server and the raw SQL baseline)");
    return [];
  }
  const schema = `bench_${process.pid}`;
  const storage = await connectPostgres(url, { schema, maxConnections: CLIENTS });
  let reserves: number;
  try {
    const measured = await benchStorage("postgres", storage);
    for (const line of measured.lines) console.log(line);
    reserves = measured.reserves;
  } finally {
    const pool = new pg.Pool({ connectionString: url });
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
  const raw = await rawBaseline(url);
  return [{ name: "reservations on one hot balance", store: "postgres", value: reserves, unit: "/s", floor: { value: raw, what: "the same rows by hand" } }];
}

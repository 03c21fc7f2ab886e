import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createFileBlobStore } from "../adapters/blobs";
import { ManualClock } from "../adapters/clock";
import { connectPostgres, openPGlite, type PostgresStorage } from "../adapters/postgres";
import { systemContext } from "../src/engine/context";
import { engineDeps } from "../src/engine/engine";
import { createEngine } from "../src/modules";
import { devPorts } from "../adapters/dev";
import type { Figure } from "./table";
import { dropSchema } from "./schemas";

/**
 * A `ledger_entries` report of BENCH_REPORT_ROWS (default 1,000,000) entries on PostgreSQL
 * (DATABASE_URL; else PGlite with a tenth of them): the rows are inserted with SQL, then the
 * report is built as the worker builds it (keyset pages into a file on disk), first over a tenth
 * of the entries, then over all of them. Prints each build's time and the process's peak RSS
 * growth over it (sampled every 10 ms from a baseline taken after a full collection), with the
 * JavaScript heap's and the buffers' share of it and each V8 heap space's (young generation
 * `new`, old generation `old`, …): flat memory shows as the same growth for both builds.
 * BENCH_REPORT_PAGE sets the page size.
 */
export async function benchReports(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const url = process.env.DATABASE_URL;
  const rows = Number(process.env.BENCH_REPORT_ROWS ?? (url ? 1_000_000 : 100_000));
  const schema = `bench_reports_${process.pid}`;
  const storage: PostgresStorage = url ? await connectPostgres(url, { schema }) : await openPGlite(undefined, { schema });
  const directory = await mkdtemp(join(tmpdir(), "payrail-bench-reports-"));
  const clock = new ManualClock();
  const pageSize = process.env.BENCH_REPORT_PAGE ? Number(process.env.BENCH_REPORT_PAGE) : undefined;
  const engine = await createEngine({
    storage,
    ...devPorts({ clock }),
    blobs: createFileBlobStore({ directory }),
    ...(pageSize ? { config: { reportPageSize: pageSize } } : {}),
  });
  try {
    const account = await engine.accounts.create({ name: "bench" });
    const t0 = clock.now();
    const s = `"${schema}"`;
    // Entries 1 ms apart (ten per millisecond), on two chains and both customer books, with counter
    // entries beside them that the report must skip; ids are time-ordered text like the engine's.
    const insertStart = performance.now();
    for (let from = 0; from < rows; from += 250_000) {
      const to = Math.min(rows, from + 250_000) - 1;
      await storage.driver.query(
        `INSERT INTO ${s}.ledger_entries (account_id, id, posting_id, line, asset, chain, book, amount, resource, created)
         SELECT $1, 'le_' || lpad(i::text, 26, '0'), 'pst_' || lpad((i / 2)::text, 26, '0'), i % 2, 'USDC',
                CASE WHEN i % 3 = 0 THEN 'solana' ELSE 'base' END,
                CASE WHEN i % 2 = 0 THEN 'available' ELSE 'reserved' END,
                CASE WHEN i % 2 = 0 THEN -(1000 + i) ELSE 1000 + i END,
                CASE WHEN i % 4 < 2 THEN 'po_' || lpad((i / 4)::text, 26, '0') ELSE NULL END,
                $2::bigint + i / 10
         FROM generate_series($3::bigint, $4::bigint) AS i`,
        [account.id, t0, from, to],
      );
    }
    await storage.driver.query(
      `INSERT INTO ${s}.ledger_entries (account_id, id, posting_id, line, asset, chain, book, amount, resource, created)
       SELECT $1, 'le_c' || lpad(i::text, 25, '0'), 'pst_c' || lpad(i::text, 25, '0'), 0, 'USDC', 'base', 'counter:external', 1, NULL, $2::bigint + i
       FROM generate_series(0, $3::bigint) AS i`,
      [account.id, t0, Math.floor(rows / 10)],
    );
    await storage.driver.query(`ANALYZE ${s}.ledger_entries`);
    const inserted = (performance.now() - insertStart) / 1000;
    clock.set(t0 + rows / 10 + 2000);

    await engine.worker.runDue(); // housekeeping first, so the figures are the builds' alone
    const ctx = systemContext(account.id, false);
    console.log(
      `reports: ledger_entries on ${url ? "postgres" : "pglite"}, ${rows.toLocaleString("en")} entries inserted in ` +
        `${inserted.toFixed(1)} s, page size ${engineDeps(engine).config.reportPageSize}, files on disk`,
    );
    // A tenth of the window, then all of it: the growth of memory should not follow the rows.
    for (const share of [0.1, 1]) {
      const lt = t0 + Math.ceil((rows * share) / 10);
      const created = (await engine.reports.create(ctx, { type: "ledger_entries", created_lt: new Date(lt).toISOString() }))._unsafeUnwrap();
      collectGarbage();
      const before = process.memoryUsage();
      const base = before.rss;
      let peak = base;
      let peakHeap = before.heapTotal;
      let peakExternal = before.external;
      const spacesBefore = heapSpaces();
      const spacesPeak = new Map(spacesBefore);
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peak = Math.max(peak, m.rss);
        peakHeap = Math.max(peakHeap, m.heapTotal);
        peakExternal = Math.max(peakExternal, m.external);
        for (const [name, size] of heapSpaces()) spacesPeak.set(name, Math.max(spacesPeak.get(name) ?? 0, size));
      }, 10);
      const cpu = process.cpuUsage();
      const start = performance.now();
      await engine.worker.runDue();
      const seconds = (performance.now() - start) / 1000;
      const used = process.cpuUsage(cpu);
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const report = (await engine.reports.retrieve(ctx, created.id))._unsafeUnwrap();
      if (report.status !== "ready" || report.row_count === null) throw new Error(`report ended ${report.status}`);
      const file = await createFileBlobStore({ directory }).get(`reports/${account.id}/${report.id}.csv`);
      await file?.body.cancel();
      console.log(
        `  ${report.row_count.toLocaleString("en").padStart(9)} rows built in ${seconds.toFixed(2)} s ` +
          `(${Math.round(report.row_count / seconds).toLocaleString("en")} rows/s, ${((used.user + used.system) / 1e6).toFixed(2)} s CPU here), ` +
          `file ${((file?.size ?? 0) / 1e6).toFixed(1)} MB, peak RSS growth ${((peak - base) / 1e6).toFixed(1)} MB ` +
          `(RSS before ${(base / 1e6).toFixed(0)} MB; heap +${((peakHeap - before.heapTotal) / 1e6).toFixed(1)} MB, external +${((peakExternal - before.external) / 1e6).toFixed(1)} MB)`,
      );
      const store = url ? "postgres" : "pglite";
      const rowsLabel = report.row_count.toLocaleString("en");
      console.log(
        `    heap spaces, peak growth: ${[...spacesPeak]
          .map(([name, size]) => `${name.replace(/_space$/, "")} +${((size - (spacesBefore.get(name) ?? 0)) / 1e6).toFixed(1)}`)
          .join(", ")} MB`,
      );
      figures.push(
        { name: `report of ${rowsLabel} ledger rows built`, store, value: seconds, unit: "s" },
        { name: `report of ${rowsLabel} rows: peak RSS growth`, store, value: (peak - base) / 1e6, unit: "MB", target: { value: { max: 50 } } },
      );
    }
    return figures;
  } finally {
    await engine.close();
    await rm(directory, { recursive: true, force: true });
    if (url) {
      await dropSchema(url, schema);
    }
  }
}

/** A full collection, so the baseline is the live heap (`--expose-gc` turned on here if the process was started without it). */
function collectGarbage(): void {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
}

/** Each V8 heap space's committed size in bytes (new, old, code, large object…). */
function heapSpaces(): Map<string, number> {
  return new Map(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
}

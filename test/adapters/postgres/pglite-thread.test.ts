import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { openPGlite, pgliteDriver, pgliteThreadDriver, type PGliteLike } from "../../../adapters/postgres";
import { StorageUnavailableError } from "../../../src/ports/public";

/**
 * PGlite in a worker thread (`openPGlite(dir, { thread: true })`): it answers as PGlite in the
 * host's thread does, keeps its data directory, ends its thread on close, and a thread that
 * stops fails what waits on it as storage unavailable instead of leaving it waiting.
 */
describe("PGlite in a worker thread", () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "payrail-pglite-thread-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("answers as PGlite in this thread does: rows, types, row counts, errors with their SQLSTATE, transactions", async () => {
    const local = await PGlite.create();
    const threaded = await pgliteThreadDriver();
    try {
      const here = pgliteDriver(local as unknown as PGliteLike);
      const setup = `CREATE TABLE t (k integer PRIMARY KEY, v text, d jsonb, n numeric(78, 0), b bigint, tags text[], at timestamptz);
        INSERT INTO t SELECT g, 'v' || g, jsonb_build_object('g', g), g * 10, g * 100, ARRAY['a', 'b'], '2026-01-01'::timestamptz FROM generate_series(1, 20) g`;
      for (const d of [here, threaded]) await d.transaction((c) => c.exec(setup));
      const text = "SELECT * FROM t WHERE k = ANY($1::integer[]) ORDER BY k";
      expect(await threaded.query(text, [[3, 4]])).toEqual(await here.query(text, [[3, 4]]));
      const update = "UPDATE t SET v = $2 WHERE k <= $1";
      expect(await threaded.query(update, [5, "x"])).toEqual(await here.query(update, [5, "x"]));
      const error = await threaded.query("INSERT INTO t (k) VALUES ($1)", [1]).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(StorageUnavailableError);
      expect(error).toMatchObject({ code: "23505", message: expect.stringMatching(/duplicate key/) });
      // a parameter no message can carry fails its statement alone
      await expect(threaded.query("SELECT $1::text AS t", [() => 1])).rejects.toThrow(/could not be cloned/);
      expect((await threaded.query("SELECT $1::text AS t", ["after"])).rows).toEqual([{ t: "after" }]);
      // a transaction that throws keeps nothing; one that commits keeps everything
      await expect(
        threaded.transaction(async (c) => {
          await c.query("UPDATE t SET v = $2 WHERE k = $1", [10, "rolled back"]);
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      await threaded.transaction(async (c) => {
        await c.query("UPDATE t SET v = $2 WHERE k = $1", [11, "kept"]);
        await c.query("UPDATE t SET v = $2 WHERE k = $1", [12, "kept"]);
      });
      expect((await threaded.query("SELECT k, v FROM t WHERE k = ANY($1::integer[]) ORDER BY k", [[10, 11, 12]])).rows).toEqual([
        { k: 10, v: "v10" },
        { k: 11, v: "kept" },
        { k: 12, v: "kept" },
      ]);
    } finally {
      await threaded.close();
      await local.close();
    }
  });

  it("keeps its data directory: reopened, in a thread or in this one, it finds what was written", async () => {
    const dir = dataDir();
    const first = await pgliteThreadDriver(dir);
    await first.query("CREATE TABLE kept (k integer PRIMARY KEY, v text)");
    await first.transaction((c) => c.query("INSERT INTO kept VALUES ($1, $2)", [1, "written in the thread"]));
    await first.close();
    const again = await pgliteThreadDriver(dir);
    expect((await again.query("SELECT v FROM kept WHERE k = $1", [1])).rows).toEqual([{ v: "written in the thread" }]);
    await again.close();
    const here = await PGlite.create(dir);
    expect((await here.query("SELECT v FROM kept")).rows).toEqual([{ v: "written in the thread" }]);
    await here.close();
    // and the storage opens on it as the host opens it
    const storage = await openPGlite(dir, { thread: true });
    await storage.init();
    await storage.close();
  });

  it("ends its thread on close, and answers storage unavailable after", async () => {
    let worker: Worker | undefined;
    const driver = await pgliteThreadDriver(undefined, { onThread: (w) => (worker = w) });
    const exited = new Promise<number>((resolve) => worker!.once("exit", resolve));
    await driver.query("SELECT 1");
    await driver.close();
    await exited;
    const error = await driver.query("SELECT 1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
  });

  it("fails what waits on a thread that stops as storage unavailable, and everything after, instead of hanging", async () => {
    let worker: Worker | undefined;
    const driver = await pgliteThreadDriver(undefined, { onThread: (w) => (worker = w) });
    const waiting = driver.query("SELECT pg_sleep(5)").catch((e: unknown) => e);
    const queued = driver.query("SELECT $1::integer AS n", [1]).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await worker!.terminate(); // as a crash of the thread ends it
    for (const error of [await waiting, await queued, await driver.query("SELECT 1").catch((e: unknown) => e)]) {
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect((error as StorageUnavailableError).reason).toBe("connection");
    }
    expect(Date.now() - started).toBeLessThan(4_000);
    await driver.close();
  });
});

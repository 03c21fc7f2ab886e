import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { pgliteDriver, type PGliteLike } from "../../../adapters/postgres";
import { sessionDriver, sessionQueue } from "../../../adapters/postgres/pglite-driver";
import { pgliteSession, type PGliteSession } from "../../../adapters/postgres/pglite-session.mjs";

/**
 * The PGlite driver speaks the wire protocol to keep statements prepared in PGlite's one session
 * (docs/decisions.md): what it answers is what PGlite's own `query` answers, the prepared
 * statements stay bounded, several drivers over one database share its session safely, and a
 * transaction begins lazily and rolls back whole.
 */
describe("PGlite driver", () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
    await db.exec(`CREATE TABLE t (k integer PRIMARY KEY, v text, d jsonb, n numeric(78, 0), b bigint, tags text[])`);
    await db.exec(`INSERT INTO t SELECT g, 'v' || g, jsonb_build_object('g', g), g * 10, g * 100, ARRAY['a', 'b'] FROM generate_series(1, 50) g`);
  });
  afterAll(() => db.close());

  const driver = () => pgliteDriver(db as unknown as PGliteLike, { ownsDatabase: false });

  it("answers as PGlite's own query does: rows, types, row counts, arrays and JSON parameters", async () => {
    const d = driver();
    const text = "SELECT * FROM t WHERE k = ANY($1::integer[]) AND d->>'g' IS NOT NULL ORDER BY k";
    expect(await d.query(text, [[3, 4]])).toEqual({ rows: (await db.query(text, [[3, 4]])).rows, rowCount: 0 });
    const update = await d.query(`UPDATE t SET d = x.d::jsonb FROM json_to_recordset($1::json) AS x(k integer, d json) WHERE t.k = x.k`, [
      JSON.stringify([
        { k: 1, d: { changed: true } },
        { k: 2, d: { changed: true } },
      ]),
    ]);
    expect(update.rowCount).toBe(2);
    expect((await d.query("SELECT d FROM t WHERE k = $1", [1])).rows).toEqual([{ d: { changed: true } }]);
    expect((await d.query("SELECT n, b, tags FROM t WHERE k = $1", [5])).rows).toEqual([{ n: "50", b: 500, tags: ["a", "b"] }]);
  });

  it("keeps the prepared statements bounded, and prepares an evicted one again", async () => {
    const d = driver();
    for (let i = 0; i < 300; i++) expect((await d.query(`SELECT k, ${i} AS i FROM t WHERE k = $1`, [1])).rows).toEqual([{ k: 1, i }]);
    const count = await db.query<{ n: number }>("SELECT count(*)::integer AS n FROM pg_prepared_statements");
    expect(count.rows[0]!.n).toBeLessThanOrEqual(256);
    expect((await d.query(`SELECT k, 0 AS i FROM t WHERE k = $1`, [2])).rows).toEqual([{ k: 2, i: 0 }]);
  });

  it("lets two drivers over one database share its session and statements", async () => {
    const [a, b] = [driver(), driver()];
    const text = "SELECT v FROM t WHERE k = $1";
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).query(text, [1 + (i % 5)])));
    // a transaction of one driver is never entered by the other's statement
    const seen: string[] = [];
    await Promise.all([
      a
        .transaction(async (c) => {
          await c.query("UPDATE t SET v = $2 WHERE k = $1", [10, "in a"]);
          seen.push((await c.query<{ v: string }>(text, [10])).rows[0]!.v);
          throw new Error("roll back");
        })
        .catch(() => undefined),
      b.query<{ v: string }>(text, [10]).then((r) => seen.push(`b saw ${r.rows[0]!.v}`)),
    ]);
    expect(seen.sort()).toEqual(["b saw v10", "in a"]);
    expect((await b.query(text, [10])).rows).toEqual([{ v: "v10" }]);
  });

  it("runs calls made without waiting one after another, in the order they were made", async () => {
    // PGlite parses one result at a time: overlapping calls would mix up their rows
    const session = pgliteSession(db as unknown as PGliteLike);
    const calls = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 3
        ? session.exec({ text: `UPDATE t SET v = 'order ${i}' WHERE k = 30`, syncToFs: i % 2 === 0 })
        : session.run({ name: "payrail_test_order", text: "SELECT $1::integer AS i, v FROM t WHERE k = 30", params: [i], syncToFs: i % 2 === 0 }),
    );
    const answers = await Promise.all(calls);
    answers.forEach((answer, i) => {
      if (i % 4 === 3) return;
      // each read sees the last update made before it, none made after
      const last = Math.floor((i + 1) / 4) * 4 - 1;
      expect(answer).toEqual({ rows: [{ i, v: last > 0 ? `order ${last}` : "v30" }], rowCount: 0 });
    });
    await session.drained();
  });

  it("passes the session on as a transaction sends COMMIT; its caller hears the outcome only once COMMIT answers", async () => {
    const sent: string[] = [];
    const commits: { resolve: () => void; reject: (e: Error) => void }[] = [];
    const fake: PGliteSession = {
      run: async (statement) => {
        sent.push(`${statement.before ? `${statement.before}; ` : ""}${statement.text}`);
        return { rows: [], rowCount: 1 };
      },
      exec: (statement) => {
        sent.push(statement.text);
        if (statement.text !== "COMMIT") return Promise.resolve();
        return new Promise<void>((resolve, reject) => commits.push({ resolve, reject }));
      },
      drained: () => Promise.resolve(),
    };
    const d = sessionDriver(fake, sessionQueue(), async () => undefined);
    let firstDone = false;
    const first = d.transaction((c) => c.query("UPDATE a", [1])).then(() => (firstDone = true));
    const second = d.transaction((c) => c.query("UPDATE b", [2]));
    await vi.waitFor(() => expect(commits).toHaveLength(2));
    // the second transaction ran while the first's COMMIT had not answered
    expect(sent).toEqual(["BEGIN ISOLATION LEVEL READ COMMITTED; UPDATE a", "COMMIT", "BEGIN ISOLATION LEVEL READ COMMITTED; UPDATE b", "COMMIT"]);
    expect(firstDone).toBe(false);
    commits[0]!.resolve();
    await first;
    commits[1]!.reject(new Error("could not commit"));
    await expect(second).rejects.toThrow(/could not commit/);
  });

  it("begins a transaction only at its first write, and a failing statement leaves the session usable", async () => {
    const d = driver();
    const read = await d.transaction(async (c) => (await c.standalone("SELECT v FROM t WHERE k = $1", [20])).rows);
    expect(read).toEqual([{ v: "v20" }]);
    await expect(d.query("SELECT * FROM t WHERE k = $1", ["not a number"])).rejects.toThrow(/invalid input syntax/);
    await expect(
      d.transaction(async (c) => {
        await c.query("UPDATE t SET v = $2 WHERE k = $1", [20, "changed"]);
        await c.query("SELECT 1 / $1::integer", [0]);
      }),
    ).rejects.toThrow(/division by zero/);
    expect((await d.query("SELECT v FROM t WHERE k = $1", [20])).rows).toEqual([{ v: "v20" }]);
  });
});

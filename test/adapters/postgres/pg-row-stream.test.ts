import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgPoolDriver, type PgPoolLike, type PostgresDriver } from "../../../adapters/postgres";

/**
 * `SqlClient.each` on a `pg` pool (what report builds read pages with): rows arrive one by one as
 * value lists in the statement's order, none kept; a row handler that throws fails the read once
 * its rows have drained, and the session stays usable; a bad statement fails as storage does.
 */
const url = process.env.DATABASE_URL;

describe.skipIf(!url)("pg rows streamed one by one (needs DATABASE_URL)", () => {
  let pool: pg.Pool;
  let driver: PostgresDriver;

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: url, max: 1 });
    driver = pgPoolDriver(pool as unknown as PgPoolLike, { ownsPool: false });
  });

  afterAll(async () => {
    await pool.end();
  });

  const series = "SELECT i, 'r' || i AS name FROM generate_series(1, $1::int) AS i ORDER BY i";

  it("hands each row's values over in order and counts them", async () => {
    const seen: unknown[][] = [];
    const count = await driver.transaction(async (c) => {
      expect(c.each).toBeTypeOf("function");
      return c.each!(series, [2500], (values) => seen.push(values));
    });
    expect(count).toBe(2500);
    expect(seen[0]).toEqual([1, "r1"]);
    expect(seen[2499]).toEqual([2500, "r2500"]);
  });

  it("fails the read with what the handler threw, and the session reads on", async () => {
    let calls = 0;
    const read = driver.transaction((c) =>
      c.each!(series, [10], () => {
        calls++;
        if (calls === 3) throw new Error("row handler failed");
      }),
    );
    await expect(read).rejects.toThrow("row handler failed");
    expect(calls).toBe(3);
    expect(await driver.transaction((c) => c.each!(series, [4], () => undefined))).toBe(4);
  });

  it("fails a statement the server refuses like any query", async () => {
    await expect(driver.transaction((c) => c.each!("SELECT * FROM no_such_table WHERE x = $1", [1], () => undefined))).rejects.toThrow(/no_such_table/);
    expect(await driver.transaction((c) => c.each!(series, [1], () => undefined))).toBe(1);
  });
});

import { describe, expect, it } from "vitest";
import { pgPoolDriver, type PgPoolLike, type PgStatement } from "../../../adapters/postgres";

/**
 * A transaction's statements may be sent together (reads of one step), but a `pg` session takes
 * one at a time (pg 9 refuses a query while one runs): the driver sends them in call order, one
 * after another's answer, with one BEGIN however many ask for it, and a ROLLBACK when one fails
 * after another opened the transaction.
 */
describe("pg pool driver", () => {
  /** A pool of one session that fails a statement sent while another runs, and answers each after a tick. */
  const fakePool = (failing?: RegExp) => {
    const sent: string[] = [];
    let busy = false;
    const query = async (statement: PgStatement) => {
      const text = typeof statement === "string" ? statement : statement.text;
      if (busy) throw new Error(`overlap: ${text}`);
      busy = true;
      sent.push(text);
      await new Promise((resolve) => setTimeout(resolve, 1));
      busy = false;
      if (failing?.test(text)) throw new Error(`failed: ${text}`);
      return { rows: [{ text }], rowCount: 1 };
    };
    const pool: PgPoolLike = {
      connect: async () => ({ query, release: () => undefined }),
      query,
      end: async () => undefined,
    };
    return { pool, sent };
  };

  it("sends a transaction's statements one at a time, with one BEGIN however many ask for it", async () => {
    const { pool, sent } = fakePool();
    const answers = await pgPoolDriver(pool).transaction((c) =>
      Promise.all([c.standalone("SELECT 1", []), c.query("UPDATE a SET x = $1", [1]), c.query("UPDATE b SET x = $1", [2]), c.standalone("SELECT 2", [])]),
    );
    expect(answers.map((a) => a.rows[0])).toEqual([
      { text: "SELECT 1" },
      { text: "UPDATE a SET x = $1" },
      { text: "UPDATE b SET x = $1" },
      { text: "SELECT 2" },
    ]);
    // the writes in the order they were made, after their BEGIN; a plain read needs no transaction and waits for none
    expect(sent).toEqual(["SELECT 1", "BEGIN ISOLATION LEVEL READ COMMITTED", "SELECT 2", "UPDATE a SET x = $1", "UPDATE b SET x = $1", "COMMIT"]);
  });

  it("listens to a pool's sessions once, however many drivers share the pool", () => {
    const listeners: string[] = [];
    const { pool } = fakePool();
    const shared: PgPoolLike = { ...pool, on: (event) => listeners.push(event) };
    for (let i = 0; i < 12; i++) pgPoolDriver(shared);
    expect(listeners).toEqual(["connect"]);
  });

  it("rolls back a transaction whose BEGIN was on its way when a statement beside it failed", async () => {
    const { pool, sent } = fakePool(/^SELECT 1/);
    await expect(pgPoolDriver(pool).transaction((c) => Promise.all([c.standalone("SELECT 1", []), c.query("UPDATE a SET x = $1", [1])]))).rejects.toThrow(
      /failed: SELECT 1/,
    );
    expect(sent).toEqual(["SELECT 1", "BEGIN ISOLATION LEVEL READ COMMITTED", "UPDATE a SET x = $1", "ROLLBACK"]);
  });
});

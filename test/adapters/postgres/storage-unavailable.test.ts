import { EventEmitter } from "node:events";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { classifyUnavailable, pgliteDriver, pgPoolDriver, type PGliteLike, type PgPoolClientLike, type PgPoolLike } from "../../../adapters/postgres";
import { StorageUnavailableError } from "../../../src/ports/public";

/** An error as `pg` makes them: a message, a SQLSTATE or an errno code. */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

/**
 * Issue 23, item 1: the PostgreSQL adapter tells "the database cannot serve now" from a fault of
 * the statement, on both drivers, and a `pg` session the server ends while it is checked out no
 * longer ends the process.
 */
describe("storage unavailable (PostgreSQL adapter)", () => {
  it("classifies what a restart, a failover, a full disk or too many sessions look like, and nothing else", () => {
    const cases: [Error, string | null][] = [
      [pgError("terminating connection due to administrator command", "57P01"), "connection"],
      [pgError("terminating connection because of crash of another server process", "57P02"), "connection"],
      [pgError("the database system is starting up", "57P03"), "starting"],
      [pgError("the database system is shutting down", "57P03"), "starting"],
      [pgError("connection failure", "08006"), "connection"],
      [pgError("could not connect", "08001"), "connection"],
      [pgError("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"), "connection"],
      [pgError("read ECONNRESET", "ECONNRESET"), "connection"],
      [pgError("Connection terminated unexpectedly"), "connection"],
      [pgError("Client has encountered a connection error and is not queryable"), "connection"],
      [pgError("sorry, too many clients already", "53300"), "too_many_connections"],
      [pgError("could not extend file: No space left on device", "53100"), "disk_full"],
      [pgError("out of memory", "53200"), "out_of_memory"],
      [pgError("cannot execute INSERT in a read-only transaction", "25006"), "read_only"],
      [Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 }), "disk_full"],
      [new Error("wrapped", { cause: pgError("terminating connection due to administrator command", "57P01") }), "connection"],
      // faults of the statement or the code stay what they are
      [pgError('duplicate key value violates unique constraint "t_pkey"', "23505"), null],
      [pgError("could not serialize access due to concurrent update", "40001"), null],
      [pgError("deadlock detected", "40P01"), null],
      [pgError('new row for relation "balances" violates check constraint', "23514"), null],
      [pgError('syntax error at or near "SELEC"', "42601"), null],
      [new TypeError("Cannot read properties of undefined"), null],
    ];
    for (const [error, reason] of cases) {
      const classified = classifyUnavailable(error, "pg");
      expect(classified?.reason ?? null, error.message).toBe(reason);
      if (classified) {
        expect(classified).toBeInstanceOf(StorageUnavailableError);
        expect(classified.cause).toBe(error);
      }
    }
    expect(classifyUnavailable(pgError("x", "53100"), "pg")?.writesOnly).toBe(true);
    expect(classifyUnavailable(pgError("x", "57P01"), "pg")?.writesOnly).toBe(false);
  });

  it("leaves PGlite's statement errors as they are", async () => {
    const db = await PGlite.create();
    try {
      const driver = pgliteDriver(db as unknown as PGliteLike);
      await driver.query("CREATE TABLE t (k integer PRIMARY KEY)");
      await driver.query("INSERT INTO t VALUES ($1)", [1]);
      const error = await driver.query("INSERT INTO t VALUES ($1)", [1]).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(StorageUnavailableError);
      expect((error as { code?: string }).code).toBe("23505");
    } finally {
      await db.close();
    }
  });

  it("gives every session a listener from the moment the pool opens it, before a transaction has it", () => {
    // A restart can end a session in the same read as its "ready": the pool stops listening as
    // it hands the session out, and the end is emitted before the transaction listens itself.
    const pool = new EventEmitter() as EventEmitter & PgPoolLike;
    pgPoolDriver(Object.assign(pool, { connect: async () => session, query: async () => ({ rows: [], rowCount: 0 }), end: async () => undefined }), {
      ownsPool: false,
    });
    const session = new EventEmitter() as EventEmitter & PgPoolClientLike;
    pool.emit("connect", session);
    expect(() => session.emit("error", pgError("terminating connection due to administrator command", "57P01"))).not.toThrow();
    // without it, Node's rule for an unheard 'error' event ends the process
    expect(() => new EventEmitter().emit("error", new Error("unheard"))).toThrow("unheard");
  });

  it.skipIf(!process.env.DATABASE_URL)("survives the server ending a session checked out in a transaction, and goes on with a new one", async () => {
    const appName = `payrail_unavail_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2, application_name: appName });
    pool.on("error", () => undefined); // idle sessions: the pool's own concern
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      const driver = pgPoolDriver(pool as unknown as PgPoolLike, { ownsPool: false });
      const error = await driver
        .transaction(async (c) => {
          await c.query("SELECT 1 AS one WHERE $1::int = 1", [1]);
          // the session is checked out here, between two statements, when the server ends it
          await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [appName]);
          await new Promise((r) => setTimeout(r, 200)); // the 'error' event arrives while nothing runs on it
          await c.query("SELECT 2 AS two WHERE $1::int = 1", [1]);
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect((error as StorageUnavailableError).reason).toBe("connection");
      expect((await driver.query("SELECT $1::int AS n", [7])).rows).toEqual([{ n: 7 }]); // a fresh session
    } finally {
      await admin.end();
      await pool.end();
    }
  });
});

import { BackgroundLimit } from "../../src/ports/public";
import { beginLazily, isStalePlan, preparedName, type PostgresDriver, type SqlClient, type TxClient } from "./driver";
import { inTurns } from "./in-turn.mjs";
import { asStorageError } from "./unavailable";

/** A statement as `pg` takes it: its text, or a named (prepared once per session) statement with its values. */
export type PgStatement = string | { name: string; text: string; values: unknown[] };

/** The subset of `pg.Pool` the driver uses (so the core does not depend on pg's types). */
export interface PgPoolLike {
  connect(): Promise<PgPoolClientLike>;
  query(statement: PgStatement, params?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  end(): Promise<void>;
  /** `pg.Pool` announces each session it opens (see `pgPoolDriver`). */
  on?(event: "connect", listener: (client: PgPoolClientLike) => void): unknown;
}

export interface PgPoolClientLike {
  query(statement: PgStatement, params?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  release(error?: Error | boolean): void;
  /** `pg`'s clients are event emitters: a session the server ends while checked out emits `error`. */
  on?(event: "error", listener: (error: Error) => void): unknown;
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * `pg.Query`: given a `row` listener and no callback, it hands each row to the listener and keeps
 * none; it emits `end` or `error` once, and is sent with `client.query(query)`.
 */
type PgQueryClass = new (config: {
  text: string;
  values: unknown[];
  name?: string;
  rowMode: "array";
}) => {
  on(event: "row", listener: (row: unknown[]) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
};

/** `pg.Query` when `client` is a `pg` client (its class carries it). */
function queryClass(client: object): PgQueryClass | undefined {
  const Query = (client.constructor as { Query?: unknown } | undefined)?.Query;
  return typeof Query === "function" ? (Query as PgQueryClass) : undefined;
}

/**
 * The statement to send for `text` with `params`: named, so each session parses and plans it
 * once and then only binds and executes it (the server's CPU per statement is what a busy
 * database spends most on), unless it has no parameters (BEGIN, COMMIT: the simple protocol).
 */
function statement(text: string, params: unknown[] | undefined): PgStatement {
  const name = preparedName(text, params);
  return name === null ? text : { name, text, values: params! };
}

/** How `pgPoolDriver` uses its pool. */
export interface PgPoolDriverOptions {
  /** End the pool on close (default true). */
  ownsPool?: boolean;
  /**
   * Transactions background work (`inBackground`: the worker runner) holds at once, so the
   * pool's other sessions are always there for requests (default: no cap).
   */
  backgroundSessions?: number;
  /**
   * Send statements with parameters as named prepared statements, parsed and planned once per
   * session (default true). Turn it off behind a pooler that does not keep them per client
   * (PgBouncer before 1.21 in transaction mode).
   */
  namedStatements?: boolean;
}

/** Pools whose sessions `pgPoolDriver` listens to already. */
const listened = new WeakSet<PgPoolLike>();

/** Drives a `pg` Pool (see `PgPoolDriverOptions`). */
export function pgPoolDriver(pool: PgPoolLike, options: PgPoolDriverOptions = {}): PostgresDriver {
  const ownsPool = options.ownsPool ?? true;
  const named = options.namedStatements ?? true;
  const background = options.backgroundSessions === undefined ? null : new BackgroundLimit(options.backgroundSessions);
  // Every session hears its errors for its whole life. The pool listens only while a session is
  // idle, and a session handed out is listened to only once `transaction` has it: when the
  // server ends a session that has just connected (a restart), its "ready" and its end arrive
  // in one read, and the end would be emitted in between, with no listener, ending the process.
  // What the session was doing fails on its own, and the pool drops a session that is unusable.
  // Once per pool, however many drivers share it (a schema each): one listener per session.
  if (!listened.has(pool)) {
    listened.add(pool);
    pool.on?.("connect", (client) => client.on?.("error", ignoreSessionError));
  }
  /** `client` as a `SqlClient`; a session's (`inTurn`) takes one statement at a time, in call order. */
  const wrap = (client: { query: PgPoolLike["query"] }, inTurn: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn()): SqlClient => {
    const Query = queryClass(client);
    return {
      async query(text, params) {
        try {
          const r = await inTurn(() => client.query(named ? statement(text, params) : text, params));
          return { rows: r.rows, rowCount: r.rowCount ?? 0 };
        } catch (e) {
          isStalePlan(e, text); // renamed for next time; the storage runs the transaction again
          throw asStorageError(e, "pg");
        }
      },
      async exec(text) {
        try {
          await inTurn(() => client.query(text)); // no parameters: pg uses the simple protocol
        } catch (e) {
          throw asStorageError(e, "pg");
        }
      },
      // a `pg` client's class carries `pg.Query`, which streams rows; other clients read with `query`
      ...(Query !== undefined
        ? { each: (text: string, params: unknown[], row: (values: unknown[]) => void) => inTurn(() => each(Query, client, text, params, row)) }
        : {}),
    };
  };
  /** `SqlClient.each` on a `pg` client: a `pg.Query` whose rows (arrays) go to `row` as they are parsed. */
  const each = async (Query: PgQueryClass, client: { query(q: unknown): unknown }, text: string, params: unknown[], row: (values: unknown[]) => void) => {
    const name = named ? preparedName(text, params) : null;
    const query = new Query({ text, values: params, rowMode: "array", ...(name !== null ? { name } : {}) });
    let count = 0;
    let thrown: { error: unknown } | null = null;
    try {
      await new Promise<void>((resolve, reject) => {
        query.on("row", (values) => {
          if (thrown) return; // the rest of the rows are read and dropped; the read fails at its end
          try {
            row(values);
            count++;
          } catch (e) {
            thrown = { error: e };
          }
        });
        query.on("end", () => resolve());
        query.on("error", reject);
        client.query(query);
      });
    } catch (e) {
      isStalePlan(e, text);
      throw asStorageError(e, "pg");
    }
    if (thrown) throw (thrown as { error: unknown }).error;
    return count;
  };
  return {
    name: "pg",
    concurrent: true,
    query: wrap(pool).query,
    transaction: (fn, options) => (background ? background.run(() => transaction(fn, options)) : transaction(fn, options)),
    async close() {
      if (ownsPool) await pool.end();
    },
  };

  async function transaction<T>(fn: (client: TxClient) => Promise<T>, options: { durable?: boolean } = {}): Promise<T> {
    let client: PgPoolClientLike;
    try {
      client = await pool.connect();
    } catch (e) {
      throw asStorageError(e, "pg");
    }
    let broken = false;
    // The pool listens for errors of idle sessions only: one the server ends while it is checked
    // out here (a restart, a failover, pg_terminate_backend) would emit `error` with no listener,
    // and Node would end the process. Heard here, the session is dropped on release; the query
    // in flight, if any, fails on its own.
    const lost = () => {
      broken = true;
    };
    client.on?.("error", lost);
    try {
      const session = wrap(client, inTurns());
      return await beginLazily(session, fn, lost, undefined, options.durable ?? true);
    } finally {
      client.removeListener?.("error", lost);
      client.release(broken); // a session whose ROLLBACK failed, or that the server ended, is unusable: the pool drops it
    }
  }
}

/** See `pgPoolDriver`: a session's error is handled where its statements fail. */
function ignoreSessionError(): void {}

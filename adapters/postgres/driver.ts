import { BackgroundLimit, PriorityMutex } from "../../src/concurrency/priority";

/** The part of a database session the adapter uses: one parameterised statement at a time. */
export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number }>;
  /** Several statements without parameters (migrations), through the simple query protocol. */
  exec(text: string): Promise<void>;
}

/**
 * A session inside `PostgresDriver.transaction`. BEGIN is sent only before the first `query` or
 * `exec`: until then `standalone` statements run on their own, outside any transaction. At READ
 * COMMITTED (the adapter's level) every statement takes a fresh snapshot inside a transaction or
 * out, so a plain read before BEGIN sees what it would have seen after it; and a transaction that
 * reads, then writes once, pays no round trip for BEGIN and COMMIT.
 */
export interface TxClient extends SqlClient {
  /**
   * Runs `text` outside the transaction while it has not begun, inside it once it has. Only for
   * statements that need no transaction around them: a plain read (no locks, no side effects),
   * or the transaction's last write, atomic on its own (its checks inside the statement).
   */
  standalone: SqlClient["query"];
}

/**
 * How the PostgreSQL adapter reaches a database: a `pg` pool (a server, concurrent sessions) or
 * PGlite (embedded, one session). The adapter's SQL is the same on both.
 */
export interface PostgresDriver {
  /** `pg` or `pglite`, for error messages. */
  readonly name: string;
  /** Whether transactions can run at the same time (a pool) or one after another (PGlite). */
  readonly concurrent: boolean;
  /** One statement outside any transaction. */
  query: SqlClient["query"];
  /**
   * Runs `fn` on one session of its own, inside BEGIN … COMMIT once `fn` sends anything but
   * `standalone` statements (see `TxClient`); ROLLBACK when it throws with the transaction open.
   */
  transaction<T>(fn: (client: TxClient) => Promise<T>): Promise<T>;
  /** Ends the sessions, if the driver owns them. */
  close(): Promise<void>;
}

/** The subset of `pg.Pool` the driver uses (so the core does not depend on pg's types). */
export interface PgPoolLike {
  connect(): Promise<PgPoolClientLike>;
  query(text: string, params?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  end(): Promise<void>;
}

export interface PgPoolClientLike {
  query(text: string, params?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  release(error?: Error | boolean): void;
}

/**
 * Drives a `pg` Pool. `ownsPool` (default true) ends the pool on close. `backgroundSessions`
 * caps the transactions background work (`inBackground`: the worker runner) holds at once, so
 * the pool's other sessions are always there for requests (default: no cap).
 */
export function pgPoolDriver(pool: PgPoolLike, options: { ownsPool?: boolean; backgroundSessions?: number } = {}): PostgresDriver {
  const ownsPool = options.ownsPool ?? true;
  const background = options.backgroundSessions === undefined ? null : new BackgroundLimit(options.backgroundSessions);
  const wrap = (client: { query: PgPoolLike["query"] }): SqlClient => ({
    async query(text, params) {
      const r = await client.query(text, params);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    },
    async exec(text) {
      await client.query(text); // no parameters: pg uses the simple protocol
    },
  });
  return {
    name: "pg",
    concurrent: true,
    query: wrap(pool).query,
    transaction: (fn) => (background ? background.run(() => transaction(fn)) : transaction(fn)),
    async close() {
      if (ownsPool) await pool.end();
    },
  };

  async function transaction<T>(fn: (client: TxClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    const session = wrap(client);
    let open = false;
    const begin = async () => {
      if (open) return;
      // explicit: a standalone read before BEGIN is only the same read at READ COMMITTED
      await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
      open = true;
    };
    let broken = false;
    try {
      const result = await fn({
        standalone: session.query,
        async query(text, params) {
          await begin();
          return session.query(text, params);
        },
        async exec(text) {
          await begin();
          await session.exec(text);
        },
      });
      if (open) await client.query("COMMIT");
      return result;
    } catch (e) {
      if (open) {
        try {
          await client.query("ROLLBACK");
        } catch {
          broken = true; // the session is unusable; drop it from the pool
        }
      }
      throw e;
    } finally {
      client.release(broken);
    }
  }
}

/** The subset of PGlite the driver uses. */
export interface PGliteLike {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(fn: (tx: { query: PGliteLike["query"]; exec: PGliteLike["exec"] }) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly closed?: boolean;
}

/**
 * Drives PGlite. PGlite has one session, so every statement and transaction here runs through one
 * queue: a statement outside a transaction can never slip into another caller's open one. The
 * queue serves requests before background work (`inBackground`: the worker runner's drains), so
 * a request waits at most for the one background transaction running, never for a backlog.
 */
export function pgliteDriver(db: PGliteLike, options: { ownsDatabase?: boolean } = {}): PostgresDriver {
  const ownsDatabase = options.ownsDatabase ?? true;
  const mutex = new PriorityMutex({ now: () => performance.now() });
  const wrap = (q: PGliteLike["query"]): SqlClient["query"] => async (text, params) => {
    const r = await q(text, params);
    return { rows: r.rows as never[], rowCount: r.affectedRows ?? 0 };
  };
  return {
    name: "pglite",
    concurrent: false,
    query: (text, params) => mutex.run(() => wrap(db.query.bind(db))(text, params)),
    // PGlite's own transaction (BEGIN at once): in process, BEGIN and COMMIT cost no round trip
    transaction: (fn) =>
      mutex.run(() =>
        db.transaction((tx) => {
          const query = wrap(tx.query.bind(tx));
          return fn({
            query,
            standalone: query,
            exec: async (text) => {
              await tx.exec(text);
            },
          });
        }),
      ),
    async close() {
      if (ownsDatabase && !db.closed) await mutex.run(() => db.close());
    },
  };
}

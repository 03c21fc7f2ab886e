import { createHash } from "node:crypto";
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

/** A statement as `pg` takes it: its text, or a named (prepared once per session) statement with its values. */
export type PgStatement = string | { name: string; text: string; values: unknown[] };

/** The subset of `pg.Pool` the driver uses (so the core does not depend on pg's types). */
export interface PgPoolLike {
  connect(): Promise<PgPoolClientLike>;
  query(statement: PgStatement, params?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  end(): Promise<void>;
}

export interface PgPoolClientLike {
  query(statement: PgStatement, params?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  release(error?: Error | boolean): void;
}

/** Distinct statement texts given a name at most (a schema per test makes texts many); beyond, unnamed. */
const MAX_NAMED = 2_000;
const statementNames = new Map<string, string>();
/** Texts whose prepared statements went stale, and how often: their next name differs. */
const renamed = new Map<string, number>();

/**
 * Whether `e` is the server refusing a prepared statement whose result columns changed since it
 * was planned (a migration added a column to a table it reads with `*`). The statement gets a
 * new name, so each session prepares it afresh; the caller runs it (or its transaction) again.
 */
export function isStalePlan(e: unknown, text?: string): boolean {
  const stale = (e as { code?: unknown })?.code === "0A000" && /cached plan must not change result type/.test(String((e as Error).message));
  if (stale && text !== undefined && statementNames.delete(text)) renamed.set(text, (renamed.get(text) ?? 0) + 1);
  return stale;
}

/**
 * The statement to send for `text` with `params`: named, so each session parses and plans it
 * once and then only binds and executes it (the server's CPU per statement is what a busy
 * database spends most on), unless it has no parameters (BEGIN, COMMIT: the simple protocol).
 */
function statement(text: string, params: unknown[] | undefined): PgStatement {
  if (!params?.length) return text;
  let name = statementNames.get(text);
  if (name === undefined) {
    if (statementNames.size >= MAX_NAMED) return text;
    name = `payrail_${createHash("sha256").update(`${renamed.get(text) ?? 0}:${text}`).digest("base64url").slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return { name, text, values: params };
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

/** Drives a `pg` Pool (see `PgPoolDriverOptions`). */
export function pgPoolDriver(pool: PgPoolLike, options: PgPoolDriverOptions = {}): PostgresDriver {
  const ownsPool = options.ownsPool ?? true;
  const named = options.namedStatements ?? true;
  const background = options.backgroundSessions === undefined ? null : new BackgroundLimit(options.backgroundSessions);
  const wrap = (client: { query: PgPoolLike["query"] }): SqlClient => ({
    async query(text, params) {
      try {
        const r = await client.query(named ? statement(text, params) : text, params);
        return { rows: r.rows, rowCount: r.rowCount ?? 0 };
      } catch (e) {
        isStalePlan(e, text); // renamed for next time; the storage runs the transaction again
        throw e;
      }
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
    let broken = false;
    try {
      return await beginLazily(wrap(client), fn, () => (broken = true));
    } finally {
      client.release(broken); // a session whose ROLLBACK failed is unusable: the pool drops it
    }
  }
}

/**
 * Runs `fn` on `session` inside a transaction that begins only at its first `query` or `exec`
 * (see `TxClient`): COMMIT when `fn` resolves, ROLLBACK when it throws, either only if it began.
 * `broken` hears of a ROLLBACK that failed.
 */
async function beginLazily<T>(session: SqlClient, fn: (client: TxClient) => Promise<T>, broken: () => void): Promise<T> {
  let open = false;
  const begin = async () => {
    if (open) return;
    // explicit: a standalone read before BEGIN is only the same read at READ COMMITTED
    await session.exec("BEGIN ISOLATION LEVEL READ COMMITTED");
    open = true;
  };
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
    if (open) await session.exec("COMMIT");
    return result;
  } catch (e) {
    if (open) await session.exec("ROLLBACK").catch(broken);
    throw e;
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
    // PGlite's own transaction, begun at once: in process, BEGIN costs no round trip, and
    // statements outside it cost more (PGlite syncs its files after each; measured slower)
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

import { createHash } from "node:crypto";

/** The part of a database session the adapter uses: one parameterised statement at a time. */
export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number }>;
  /** Several statements without parameters (migrations), through the simple query protocol. */
  exec(text: string): Promise<void>;
  /**
   * Runs a read and hands each row to `row` as it arrives, as its values in the order the
   * statement selects them, keeping none (the result of a large read is never held at once);
   * resolves to the number of rows. A driver without it is read with `query` (`eachRow`).
   */
  each?(text: string, params: unknown[], row: (values: unknown[]) => void): Promise<number>;
}

/**
 * `each` when the driver has it, else the rows of `query` one by one (values in the order of the
 * row's columns, which is the statement's).
 */
export async function eachRow(
  each: SqlClient["each"],
  query: SqlClient["query"],
  text: string,
  params: unknown[],
  row: (values: unknown[]) => void,
): Promise<number> {
  if (each) return each(text, params, row);
  const { rows } = await query(text, params);
  for (const r of rows) row(Object.values(r as object));
  return rows.length;
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
   * `durable: false` commits it with `synchronous_commit` off (`CommitOptions`).
   */
  transaction<T>(fn: (client: TxClient) => Promise<T>, options?: { durable?: boolean }): Promise<T>;
  /** Ends the sessions, if the driver owns them. */
  close(): Promise<void>;
}

/** Distinct statement texts given a name at most (a schema per test makes texts many); beyond, unnamed. */
const MAX_NAMED = 500;
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
 * Starts a statement that is planned with its values every time it runs, never prepared under a
 * name: one whose best plan depends on how much a table holds then. A named statement's plan is
 * made once a session has run it a few times and kept; made while a table was still empty (a
 * chain adapter's state on a fresh database), it scans the table whole long after it has grown.
 */
export const PLAN_EACH_TIME = "/* planned each time */ ";

/**
 * The name `text` is prepared under (the same in every session, so a session prepares it once),
 * or null when too many texts have names already (each test's schema makes texts of its own) or
 * the text asks to be planned each time (`PLAN_EACH_TIME`).
 */
export function statementName(text: string): string | null {
  if (text.startsWith(PLAN_EACH_TIME)) return null;
  let name = statementNames.get(text);
  if (name === undefined) {
    if (statementNames.size >= MAX_NAMED) return null;
    name = `payrail_${createHash("sha256")
      .update(`${renamed.get(text) ?? 0}:${text}`)
      .digest("base64url")
      .slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * The name a statement with `params` is sent under (`statementName`), or null: a statement
 * without parameters (BEGIN, COMMIT, migrations) goes through the simple protocol, unnamed.
 */
export function preparedName(text: string, params: readonly unknown[] | undefined): string | null {
  return params?.length ? statementName(text) : null;
}

/**
 * Runs `fn` on `session` inside a transaction that begins only at its first `query` or `exec`
 * (see `TxClient`): COMMIT when `fn` resolves, ROLLBACK when it throws, either only if it began.
 * `broken` hears of a ROLLBACK that failed; `standalone` runs statements before BEGIN; with
 * `durable` false the transaction commits without waiting for its flush (`CommitOptions`).
 */
export async function beginLazily<T>(
  session: SqlClient,
  fn: (client: TxClient) => Promise<T>,
  broken: () => void,
  standalone: SqlClient["query"] = session.query,
  durable = true,
): Promise<T> {
  let open = false;
  let opening: Promise<void> | null = null;
  // once, however many statements sent together ask for it
  const begin = () =>
    (opening ??= (async () => {
      // explicit: a standalone read before BEGIN is only the same read at READ COMMITTED
      await session.exec(durable ? "BEGIN ISOLATION LEVEL READ COMMITTED" : `BEGIN ISOLATION LEVEL READ COMMITTED; ${RELAXED_COMMIT}`);
      open = true;
    })());
  try {
    const result = await fn({
      standalone: (text, params) => (open ? session.query(text, params) : standalone(text, params)),
      // a plain read, on the session inside the transaction or before it (see `standalone`)
      ...(session.each && standalone === session.query ? { each: session.each } : {}),
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
    // a BEGIN still on its way (a statement sent beside the one that failed asked for it) ends first
    await (opening as Promise<void> | null)?.catch(() => undefined);
    if (open) await session.exec("ROLLBACK").catch(broken);
    throw e;
  }
}

/** What makes the rest of a transaction commit without waiting for its WAL flush (`CommitOptions.durable` false). */
export const RELAXED_COMMIT = "SET LOCAL synchronous_commit TO off";

/**
 * The same for a statement that runs alone (`TxClient.standalone`), whose transaction no SET can
 * reach: a one-row derived table to put in its FROM list (or a CTE's), run with the statement.
 */
export const RELAXED_COMMIT_ROW = "(SELECT set_config('synchronous_commit', 'off', true)) AS relaxed_commit";

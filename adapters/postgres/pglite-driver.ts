import { PriorityMutex } from "../../src/ports/public";
import { beginLazily, isStalePlan, preparedName, type PostgresDriver, type SqlClient, type TxClient } from "./driver";
import { pgliteSession, type PGliteLike, type PGliteSession } from "./pglite-session.mjs";
import { asStorageError } from "./unavailable";

export type { PGliteLike } from "./pglite-session.mjs";

/**
 * Per database, what every driver over it shares: the one queue to its one session, and the
 * session with its prepared statements.
 */
const sessions = new WeakMap<PGliteLike, { mutex: PriorityMutex; session: PGliteSession }>();

/** The queue of one PGlite session (`pgliteDriver`): requests before background work. */
export function sessionQueue(): PriorityMutex {
  return new PriorityMutex({ now: () => performance.now() });
}

/**
 * Drives PGlite. PGlite has one session, so every statement and transaction here runs through one
 * queue (one per database, shared by every driver over it): a statement outside a transaction can
 * never slip into another caller's open one. The
 * queue serves requests before background work (`inBackground`: the worker runner's drains), so
 * a request waits at most for the one background transaction running, never for a backlog.
 *
 * Statements with parameters are prepared once under a name and then only bound and executed
 * (`pgliteSession`). Transactions begin lazily, as on a server (`TxClient`).
 */
export function pgliteDriver(db: PGliteLike, options: { ownsDatabase?: boolean } = {}): PostgresDriver {
  const ownsDatabase = options.ownsDatabase ?? true;
  let shared = sessions.get(db);
  if (!shared) sessions.set(db, (shared = { mutex: sessionQueue(), session: pgliteSession(db) }));
  const { mutex, session } = shared;
  return sessionDriver(session, mutex, async () => {
    if (ownsDatabase && !db.closed) {
      await mutex.run(async () => {
        await session.drained(); // a COMMIT sent before the close runs first
        await db.close();
      });
    }
  });
}

/**
 * A `PostgresDriver` over one PGlite session, in this thread or in the database thread
 * (`pgliteThreadDriver`): every statement and transaction through `mutex`, the session's queue.
 */
export function sessionDriver(session: Pick<PGliteSession, "run" | "exec">, mutex: PriorityMutex, close: () => Promise<void>): PostgresDriver {
  // a full disk under PGlite's files (ENOSPC), like a server's 53100, is storage unavailable (`classifyUnavailable`)
  const run = async (text: string, params: unknown[] | undefined, syncToFs: boolean, before?: string): Promise<{ rows: never[]; rowCount: number }> => {
    try {
      const r = await session.run({ name: preparedName(text, params), text, params, syncToFs, before });
      return { rows: r.rows as never[], rowCount: r.rowCount };
    } catch (e) {
      isStalePlan(e, text); // renamed: prepared afresh under its new name, the old one closed when the LRU evicts it
      throw asStorageError(e, "pglite");
    }
  };

  const exec = async (text: string, syncToFs: boolean, before?: string): Promise<void> => {
    try {
      await session.exec({ text, syncToFs, before });
    } catch (e) {
      throw asStorageError(e, "pglite");
    }
  };

  /** A ROLLBACK failed: the one session may still be inside that transaction; the next caller ends it first. */
  let broken = false;
  const transaction = async <T>(fn: (client: TxClient) => Promise<T>, durable: boolean, committing: (commit: Promise<void>) => void): Promise<T> => {
    if (broken) {
      await exec("ROLLBACK", false).catch(() => undefined);
      broken = false;
    }
    // BEGIN leaves with the transaction's first statement, in the same call into the session (one
    // message to the database thread); a BEGIN that fails fails that statement
    let begin: string | undefined;
    const takeBegin = () => {
      const text = begin;
      begin = undefined;
      return text;
    };
    // inside a transaction nothing is synced to the files until COMMIT; alone, each statement is,
    // unless the transaction need not wait for its commit to be kept (`durable: false`)
    const inside: SqlClient = {
      query: (text, params) => run(text, params, false, takeBegin()),
      exec: async (text) => {
        if (text.startsWith("BEGIN")) begin = text;
        else if (text === "COMMIT") {
          // sent, not waited for here: the session passes to the next caller at once, whose
          // statements run after it (the session keeps call order); the caller hears the outcome
          const commit = exec(text, durable);
          commit.catch(() => undefined);
          committing(commit);
        } else await exec(text, durable, takeBegin());
      },
    };
    return beginLazily(
      inside,
      fn,
      () => void (broken = true),
      (text, params) => run(text, params, durable),
      durable,
    );
  };
  return {
    name: "pglite",
    concurrent: false,
    query: (text, params) => mutex.run(() => run(text, params, true)),
    async transaction(fn, options) {
      let commit: Promise<void> | undefined;
      const result = await mutex.run(() => transaction(fn, options?.durable ?? true, (c) => (commit = c)));
      await commit; // what COMMIT answered: the transaction is kept (or failed) only now
      return result;
    },
    close,
  };
}

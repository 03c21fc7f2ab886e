import { PriorityMutex } from "../../src/ports/public";
import { beginLazily, isStalePlan, statementName, type PostgresDriver, type SqlClient, type TxClient } from "./driver";
import { asStorageError } from "./unavailable";

/** The subset of PGlite the driver uses. */
export interface PGliteLike {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(text: string): Promise<unknown>;
  /** Runs wire-protocol messages on the session; `throwOnError` throws the server's error once all are answered. */
  execProtocol(message: Uint8Array, options?: { syncToFs?: boolean; throwOnError?: boolean }): Promise<{ messages: unknown[] }>;
  /** Text to value, per type oid (what `query` uses). */
  readonly parsers: Record<number | string, (text: string, typeId: number) => unknown>;
  /** Value to text, per type oid (what `query` uses). */
  readonly serializers: Record<number | string, (value: any) => string>;
  close(): Promise<void>;
  readonly closed?: boolean;
}

/** What the driver takes of `@electric-sql/pglite`'s exports: its protocol serializer and result parsers. */
interface PGliteProtocol {
  protocol: {
    serialize: {
      parse(o: { name: string; text: string }): Uint8Array;
      bind(o: { statement: string; values: (string | null)[] }): Uint8Array;
      describe(o: { type: "S" | "P"; name?: string }): Uint8Array;
      execute(o?: object): Uint8Array;
      close(o: { type: "S"; name: string }): Uint8Array;
      query(text: string): Uint8Array;
      sync(): Uint8Array;
    };
  };
  parse: {
    parseResults(messages: any[], parsers: PGliteLike["parsers"]): { rows: any[]; affectedRows?: number }[];
    parseDescribeStatementResults(messages: any[]): number[];
  };
}

/** Statements kept prepared in the one session at most (each holds a plan in PGlite's memory). */
const MAX_PREPARED = 256;

/**
 * Per database, what every driver over it shares: the one queue to its one session, and the
 * statements prepared in that session (by name: their parameter types, least recently used first).
 */
const sessions = new WeakMap<PGliteLike, { mutex: PriorityMutex; prepared: Map<string, number[]> }>();

/**
 * Drives PGlite. PGlite has one session, so every statement and transaction here runs through one
 * queue (one per database, shared by every driver over it): a statement outside a transaction can
 * never slip into another caller's open one. The
 * queue serves requests before background work (`inBackground`: the worker runner's drains), so
 * a request waits at most for the one background transaction running, never for a backlog.
 *
 * Statements with parameters are prepared once under a name and then only bound and executed,
 * each in one call into PGlite, on the wire protocol: PGlite's `query` parses and plans every
 * statement and calls in six times (measured: a keyed SELECT 210 → 60 µs, a CTE flush 620 →
 * 180 µs). Transactions begin lazily, as on a server (`TxClient`).
 */
export function pgliteDriver(db: PGliteLike, options: { ownsDatabase?: boolean } = {}): PostgresDriver {
  const ownsDatabase = options.ownsDatabase ?? true;
  let session = sessions.get(db);
  if (!session) sessions.set(db, (session = { mutex: new PriorityMutex({ now: () => performance.now() }), prepared: new Map() }));
  const { mutex, prepared } = session;
  let loaded: Promise<PGliteProtocol> | null = null;

  const join = (parts: Uint8Array[]): Uint8Array => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };

  const prepare = async ({ protocol: { serialize }, parse }: PGliteProtocol, name: string, text: string): Promise<number[]> => {
    let types = prepared.get(name);
    if (types) {
      prepared.delete(name); // most recently used goes last
    } else {
      const evict = prepared.size >= MAX_PREPARED ? prepared.keys().next().value : undefined;
      const messages = [serialize.parse({ name, text }), serialize.describe({ type: "S", name })];
      if (evict !== undefined) {
        prepared.delete(evict);
        messages.unshift(serialize.close({ type: "S", name: evict }));
      }
      const described = await db.execProtocol(join([...messages, serialize.sync()]), { syncToFs: false, throwOnError: true });
      types = parse.parseDescribeStatementResults(described.messages);
    }
    prepared.set(name, types);
    return types;
  };

  // a full disk under PGlite's files (ENOSPC), like a server's 53100, is storage unavailable (`classifyUnavailable`)
  const run = (text: string, params: unknown[] | undefined, syncToFs: boolean): Promise<{ rows: never[]; rowCount: number }> =>
    runStatement(text, params, syncToFs).catch((e: unknown) => Promise.reject(asStorageError(e, "pglite")));

  const runStatement = async (text: string, params: unknown[] | undefined, syncToFs: boolean): Promise<{ rows: never[]; rowCount: number }> => {
    const name = params?.length ? statementName(text) : null;
    if (name === null) {
      const r = await db.query(text, params);
      return { rows: r.rows as never[], rowCount: r.affectedRows ?? 0 };
    }
    const proto = await (loaded ??= import("@electric-sql/pglite") as unknown as Promise<PGliteProtocol>);
    const { serialize } = proto.protocol;
    try {
      const types = await prepare(proto, name, text);
      const values = params!.map((v, i) => (v === null || v === undefined ? null : (db.serializers[types[i]!]?.(v) ?? String(v))));
      const message = join([serialize.bind({ statement: name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()]);
      const [result] = proto.parse.parseResults((await db.execProtocol(message, { syncToFs, throwOnError: true })).messages, db.parsers);
      return { rows: (result?.rows ?? []) as never[], rowCount: result?.affectedRows ?? 0 };
    } catch (e) {
      isStalePlan(e, text); // renamed: prepared afresh under its new name, the old one closed when the LRU evicts it
      throw e;
    }
  };

  const exec = async (text: string, syncToFs: boolean): Promise<void> => {
    const { serialize } = (await (loaded ??= import("@electric-sql/pglite") as unknown as Promise<PGliteProtocol>)).protocol;
    try {
      await db.execProtocol(serialize.query(text), { syncToFs, throwOnError: true });
    } catch (e) {
      throw asStorageError(e, "pglite");
    }
  };

  /** A ROLLBACK failed: the one session may still be inside that transaction; the next caller ends it first. */
  let broken = false;
  const transaction = async <T>(fn: (client: TxClient) => Promise<T>, durable: boolean): Promise<T> => {
    if (broken) {
      await exec("ROLLBACK", false).catch(() => undefined);
      broken = false;
    }
    // inside a transaction nothing is synced to the files until COMMIT; alone, each statement is,
    // unless the transaction need not wait for its commit to be kept (`durable: false`)
    const inside: SqlClient = { query: (text, params) => run(text, params, false), exec: (text) => exec(text, durable && !text.startsWith("BEGIN")) };
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
    transaction: (fn, options) => mutex.run(() => transaction(fn, options?.durable ?? true)),
    async close() {
      if (ownsDatabase && !db.closed) await mutex.run(() => db.close());
    },
  };
}

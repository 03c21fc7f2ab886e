// Plain JavaScript: the database thread (pglite-worker.mjs) runs this file as it is, without a
// TypeScript loader, under vitest and tsx as from the build. Types: pglite-session.d.mts.

import { inTurns } from "./in-turn.mjs";

/** Statements kept prepared in the one session at most (each holds a plan in PGlite's memory). */
const MAX_PREPARED = 256;

/** @param {Uint8Array[]} parts */
function join(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Runs statements on PGlite's one session (see pglite-session.d.mts): the same in the host's
 * thread (`pgliteDriver`) and in the database thread (`openPGlite(dir, { thread: true })`).
 * @param {import("./pglite-session.d.mts").PGliteLike} db
 * @returns {import("./pglite-session.d.mts").PGliteSession}
 */
export function pgliteSession(db) {
  /** statements prepared in the session, by name: their parameter types, least recently used first */
  const prepared = new Map();
  /** @type {Promise<any> | null} */
  let loaded = null;
  const protocol = () => (loaded ??= import("@electric-sql/pglite"));

  /** @param {any} proto @param {string} name @param {string} text @returns {Promise<number[]>} */
  const prepare = async ({ protocol: { serialize }, parse }, name, text) => {
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

  /** @param {string} text @param {boolean} syncToFs */
  const exec = async (text, syncToFs) => {
    const { serialize } = (await protocol()).protocol;
    await db.execProtocol(serialize.query(text), { syncToFs, throwOnError: true });
  };

  // the calls into PGlite, one after another in the order they were made: PGlite parses one
  // result at a time, so two calls must never overlap
  const inTurn = inTurns();

  return {
    drained: () => inTurn(async () => undefined),
    run: (statement) => inTurn(() => runNow(statement)),
    exec: ({ text, syncToFs, before }) =>
      inTurn(async () => {
        if (before !== undefined) await exec(before, false);
        await exec(text, syncToFs);
      }),
  };

  /** @param {import("./pglite-session.d.mts").PGliteStatement} statement */
  async function runNow({ name, text, params, syncToFs, before }) {
    if (before !== undefined) await exec(before, false);
    if (name === null || !params?.length) {
      const r = await db.query(text, params);
      return { rows: r.rows, rowCount: r.affectedRows ?? 0 };
    }
    const proto = await protocol();
    const { serialize } = proto.protocol;
    const types = await prepare(proto, name, text);
    const values = params.map((v, i) => (v === null || v === undefined ? null : (db.serializers[types[i]]?.(v) ?? String(v))));
    const message = join([serialize.bind({ statement: name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()]);
    const [result] = proto.parse.parseResults((await db.execProtocol(message, { syncToFs, throwOnError: true })).messages, db.parsers);
    return { rows: result?.rows ?? [], rowCount: result?.affectedRows ?? 0 };
  }
}

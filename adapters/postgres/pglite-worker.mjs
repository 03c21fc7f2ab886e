// The database thread of `openPGlite(dataDir, { thread: true })` (pglite-thread.ts): PGlite and
// its session live here, so their work never stops the host's event loop. Plain JavaScript, run
// as it is from the sources (vitest, tsx) and built as the `pglite-worker` entry (tsup.config.ts).
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { pgliteSession } from "./pglite-session.mjs";

/**
 * An error as a message can carry it: its message, name, stack, own fields (a SQLSTATE `code`,
 * an `errno`, the server's `detail`…) and cause; pglite-thread.ts makes an Error of it again.
 * @param {unknown} e
 * @returns {unknown}
 */
function errorData(e, depth = 0) {
  if (!(e instanceof Error)) return { message: String(e), name: "Error", fields: {} };
  /** @type {Record<string, unknown>} */
  const fields = {};
  for (const [key, value] of Object.entries(e)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) fields[key] = value;
  }
  return {
    message: e.message,
    name: e.name,
    stack: e.stack,
    fields,
    ...(e.cause !== undefined && depth < 4 ? { cause: errorData(e.cause, depth + 1) } : {}),
  };
}

const port = parentPort;
if (!port) throw new Error("pglite-worker.mjs runs as a worker thread (openPGlite with thread: true)");

/** @type {PGlite} */
let db;
try {
  db = workerData?.dataDir ? new PGlite(workerData.dataDir) : new PGlite();
  await db.waitReady;
} catch (e) {
  port.postMessage({ id: 0, error: errorData(e) });
  port.close();
  throw e;
}
const session = pgliteSession(/** @type {any} */ (db));
port.postMessage({ id: 0, result: null });

port.on("message", async (/** @type {{ id: number; op: "run" | "exec" | "close"; statement?: any }} */ m) => {
  try {
    if (m.op === "run") return port.postMessage({ id: m.id, result: await session.run(m.statement) });
    if (m.op === "exec") return port.postMessage({ id: m.id, result: await session.exec(m.statement) });
    await session.drained(); // a COMMIT sent before the close runs first
    if (!db.closed) await db.close();
    port.postMessage({ id: m.id, result: null });
    port.close(); // nothing left to do: the thread ends
  } catch (e) {
    port.postMessage({ id: m.id, error: errorData(e) });
  }
});

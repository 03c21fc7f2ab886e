import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { StorageUnavailableError } from "../../src/ports/public";
import type { PostgresDriver } from "./driver";
import { sessionDriver, sessionQueue } from "./pglite-driver";
import type { PGliteSession } from "./pglite-session.mjs";

/** An error as the database thread sends it (`errorData` in pglite-worker.mjs). */
interface ErrorData {
  message: string;
  name: string;
  stack?: string;
  fields: Record<string, unknown>;
  cause?: ErrorData;
}

/** The Error `data` describes, with its fields (`code`, `errno`, …) and cause, so `classifyUnavailable` and the retries read it as in this thread. */
function revive(data: ErrorData): Error {
  const e = new Error(data.message, data.cause ? { cause: revive(data.cause) } : undefined);
  Object.assign(e, data.fields);
  e.name = data.name;
  if (data.stack) e.stack = data.stack;
  return e;
}

/**
 * The database thread's script: pglite-worker.mjs beside this file in the sources; in the build
 * (tsup), the `pglite-worker` entry at the root of dist/, beside the chunk this code is in or
 * one folder up from an entry's own file.
 */
function workerScript(): URL {
  const candidates = ["./pglite-worker.mjs", "./pglite-worker.js", "../pglite-worker.js"].map((p) => new URL(p, import.meta.url));
  const found = candidates.find((url) => existsSync(fileURLToPath(url)));
  if (!found) throw new Error(`payrail: the PGlite thread's script is missing (looked for ${candidates.map((u) => fileURLToPath(u)).join(", ")})`);
  return found;
}

/** How `pgliteThreadDriver` starts its thread. */
export interface PGliteThreadOptions {
  /** Hears of the thread as it starts (its `threadId`; a test ends it to see a crash answered). */
  onThread?: (worker: Worker) => void;
}

/**
 * PGlite in a worker thread of its own, kept in `dataDir` (in memory without one): a driver
 * that answers as `pgliteDriver` does, through the same queue (requests before background
 * work), and sends each statement to the thread by message. The thread's PGlite parses, plans,
 * runs and syncs its files there, so the host's event loop only posts statements and takes rows.
 * A thread that stops (a crash, an exit) fails what waits on it and everything after as storage
 * unavailable (`connection`); `close` closes the database and ends the thread.
 */
export async function pgliteThreadDriver(dataDir?: string, options: PGliteThreadOptions = {}): Promise<PostgresDriver> {
  const worker = new Worker(workerScript(), { workerData: { dataDir: dataDir ?? null } });
  options.onThread?.(worker);
  const pending = new Map<number, { resolve: (value: any) => void; reject: (e: unknown) => void }>();
  let next = 1;
  let stopped: StorageUnavailableError | null = null;
  // the thread keeps the process alive only while a statement waits on it, as PGlite in this thread does not
  const settle = (id: number) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    return waiter;
  };
  const stop = (why: string, cause?: unknown) => {
    stopped ??= new StorageUnavailableError("connection", `pglite: the database thread ${why}`, cause === undefined ? {} : { cause });
    for (const id of [...pending.keys()]) settle(id)?.reject(stopped);
  };
  worker.on("message", (m: { id: number; result?: unknown; error?: ErrorData }) => {
    const waiter = settle(m.id);
    if (m.error) waiter?.reject(revive(m.error));
    else waiter?.resolve(m.result);
  });
  worker.on("error", (e) => stop(`failed: ${e.message}`, e));
  worker.on("messageerror", (e) => stop(`sent what cannot be read: ${e.message}`, e));
  worker.on("exit", (code) => stop(`exited (code ${code})`));
  const answer = <T>(id: number): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.ref();
    });
  };
  const send = <T>(message: { op: "run" | "exec" | "close"; statement?: unknown }): Promise<T> => {
    const id = next++;
    const answered = answer<T>(id);
    try {
      if (!stopped) worker.postMessage({ id, ...message });
    } catch (e) {
      settle(id)?.reject(e); // a parameter a message cannot carry (DataCloneError): the statement's fault
    }
    return answered;
  };

  // the thread answers 0 once PGlite is open, or with why it could not open
  await answer(0).catch(async (e: unknown) => {
    await worker.terminate();
    throw e;
  });
  // the thread runs statements in the order they were sent (pglite-session.mjs), and its close after them
  const session: Pick<PGliteSession, "run" | "exec"> = {
    run: (statement) => send({ op: "run", statement }),
    exec: (statement) => send({ op: "exec", statement }),
  };
  const mutex = sessionQueue();
  let closing: Promise<void> | null = null;
  return sessionDriver(session, mutex, () => {
    closing ??= mutex.run(async () => {
      if (!stopped) await send({ op: "close" });
      stopped ??= new StorageUnavailableError("connection", "pglite: the database is closed");
      await worker.terminate();
    });
    return closing;
  });
}

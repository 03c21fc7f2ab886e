import type { EngineDeps } from "./context";
import type { WorkerRunner } from "../workers/runner";

/** One readiness check: whether it passed, and what it saw. */
export interface ReadinessCheck {
  ok: boolean;
  detail: string;
}

/**
 * Whether an engine can serve (`GET /readyz`): storage answers a read, the schema was created or
 * migrated by `init` and is in place, and this process's workers are running (`worker.start()`
 * was called and `stop` was not).
 */
export interface Readiness {
  ready: boolean;
  checks: { storage: ReadinessCheck; migrations: ReadinessCheck; workers: ReadinessCheck };
}

/** Runs the readiness checks: one short read transaction, nothing written. */
export async function checkReadiness(deps: EngineDeps, worker: WorkerRunner, initialized: boolean): Promise<Readiness> {
  const started = deps.clock.now();
  let storage: ReadinessCheck;
  let schema = false;
  try {
    // the meta table exists only once the migrations ran; reading it proves both
    await deps.storage.transaction((tx) => tx.meta.get("cursor_secret"));
    schema = true;
    storage = { ok: true, detail: `${deps.storage.name} answered in ${deps.clock.now() - started} ms` };
  } catch (e) {
    storage = { ok: false, detail: `${deps.storage.name}: ${e instanceof Error ? e.message : String(e)}` };
  }
  const migrations: ReadinessCheck =
    initialized && schema
      ? { ok: true, detail: "schema created or migrated at start" }
      : { ok: false, detail: initialized ? "the schema could not be read" : "storage init has not completed" };
  const status = worker.status();
  const workers: ReadinessCheck = status.started
    ? {
        ok: true,
        detail: status.lastPollAt === null ? "started" : `running ${status.inFlight} item(s), last polled ${deps.clock.now() - status.lastPollAt} ms ago`,
      }
    : { ok: false, detail: "the worker loop is not running (worker.start() not called, or stopping)" };
  return { ready: storage.ok && migrations.ok && workers.ok, checks: { storage, migrations, workers } };
}

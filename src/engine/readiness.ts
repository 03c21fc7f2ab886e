import type { EngineDeps } from "./context";
import type { WorkerRunner } from "../workers/runner";
import type { StorageWatch } from "./storage-watch";

/** One readiness check: whether it passed, and what it saw. */
export interface ReadinessCheck {
  ok: boolean;
  detail: string;
}

/**
 * Whether an engine can serve (`GET /readyz`): storage answers a read and is not failing (the
 * outcomes of recent storage sessions: `StorageWatch`), the schema was created or migrated by
 * `init` and is in place, and this process's workers are running (`worker.start()` was called
 * and `stop` was not).
 */
export interface Readiness {
  ready: boolean;
  checks: { storage: ReadinessCheck; migrations: ReadinessCheck; workers: ReadinessCheck };
}

/** The meta key the write probe sets while storage is failing. */
export const READINESS_PROBE_KEY = "readiness_probe";

/**
 * Runs the readiness checks: one short read transaction. While storage is failing (a session
 * ended in `StorageUnavailableError` and none succeeded since), a write too (`READINESS_PROBE_KEY`),
 * so a full disk keeps the engine not ready while reads work, and a host that a load balancer took
 * out of rotation finds out by itself when storage is back.
 */
export async function checkReadiness(deps: EngineDeps, worker: WorkerRunner, initialized: boolean, watch: StorageWatch): Promise<Readiness> {
  const started = deps.clock.now();
  let storage: ReadinessCheck;
  let schema = false;
  try {
    // the meta table exists only once the migrations ran; reading it proves both
    await deps.storage.transaction((tx) => tx.meta.get("cursor_secret"));
    schema = true;
    if (watch.failure) await deps.storage.transaction((tx) => tx.meta.set(READINESS_PROBE_KEY, String(deps.clock.now())));
    storage = { ok: true, detail: `${deps.storage.name} answered in ${deps.clock.now() - started} ms` };
  } catch (e) {
    storage = { ok: false, detail: `${deps.storage.name}: ${e instanceof Error ? e.message : String(e)}` };
  }
  const failure = watch.failure;
  if (failure) {
    storage = { ok: false, detail: `${deps.storage.name} unavailable (${failure.reason}) for ${deps.clock.now() - failure.since} ms: ${failure.message}` };
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

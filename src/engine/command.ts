import { err, type Result } from "neverthrow";
import { type ApiError, causeOf, fail } from "../errors";
import type { Json, StorageTx } from "../ports/storage";
import type { EngineDeps, EngineWorkOptions, ModuleDeps, RequestContext, StorageAccess } from "./context";
import { responseSaved, saveResponseWithin } from "./idempotency";
import { IdempotencyKeyLostError } from "../ports/storage/idempotency";
import { UnitOfWork } from "./unit-of-work";

/** Tells the observer what a committed unit of work wrote. */
function observe(deps: EngineDeps, report: ReturnType<UnitOfWork["report"]>): void {
  for (const o of report.ledger) deps.observer.ledgerPosted(o);
  for (const o of report.events) deps.observer.eventsEmitted(o);
  for (const o of report.domain) deps.observer.domainObserved?.(o);
}

/** Carries a Result's error out of a storage transaction so the transaction rolls back. */
class Rollback extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}

export interface CommandOptions<T> {
  /** HTTP status of success, saved with the idempotent response (default 200). */
  status?: number;
  /**
   * What the idempotency record keeps of a success (default: all of it). A replay answers this,
   * so what is shown once (a webhook endpoint's secret) is left out and never stored twice.
   */
  stored?: (value: T) => unknown;
  /** Commit without waiting for the disk (`CommitOptions.durable`); only where a loss is repaired. */
  durable?: boolean;
  /**
   * Balance locks taken late (`CommitOptions.optimistic`): for a use case that locks balances,
   * decides, writes and commits, and needs the locks for the balances only.
   */
  optimistic?: boolean;
}

/**
 * Runs one state-changing use case in one storage transaction. An error Result rolls everything
 * back. On success the outbox and due work are written, and if the request holds an idempotency
 * key its response is saved in the same transaction, so a key has at most one effect even when
 * the process dies right after the commit.
 */
export async function runCommand<T>(
  deps: EngineDeps,
  ctx: RequestContext,
  fn: (uow: UnitOfWork) => Promise<Result<T, ApiError>>,
  options: CommandOptions<T> = {},
): Promise<Result<T, ApiError>> {
  try {
    // the transaction returns everything it decided: a run the storage repeats decides afresh
    const done = await deps.storage.transaction(
      async (tx) => {
        const uow = new UnitOfWork(tx, deps, ctx);
        const r = await fn(uow);
        if (r.isErr()) throw new Rollback(r.error);
        await uow.finish();
        if (ctx.idempotency) {
          await saveResponseWithin(tx, ctx.idempotency, { status: options.status ?? 200, body: (options.stored ? options.stored(r.value) : r.value) as Json });
        }
        return { result: r, wake: uow.scheduledDueWork, report: uow.report() };
      },
      { ...(options.durable === false ? { durable: false } : {}), ...(options.optimistic ? { optimistic: true } : {}) },
    );
    if (ctx.idempotency) responseSaved(ctx.idempotency);
    if (done.wake) deps.wakeWorkers();
    observe(deps, done.report);
    return done.result;
  } catch (e) {
    if (e instanceof Rollback) return err(e.error);
    if (causeOf(e, IdempotencyKeyLostError))
      return fail("idempotency_key_in_use", "Another request took over this Idempotency-Key", { param: "Idempotency-Key" });
    throw e;
  }
}

/** Engine-owned writes in one transaction (`StorageAccess.engineWork`). */
export async function runEngineWork<T>(deps: EngineDeps, fn: (tx: StorageTx) => Promise<T>, options: EngineWorkOptions<T> = {}): Promise<T> {
  const { wakeWhen, ...commit } = options;
  const value = await deps.storage.transaction(fn, commit);
  if (wakeWhen?.(value)) deps.wakeWorkers();
  return value;
}

/** The engine's parts as a module receives them: storage only through reads and units of work. */
export function moduleDeps(deps: EngineDeps): ModuleDeps {
  const { storage, wakeWorkers: _, ...core } = deps;
  const access: StorageAccess = {
    get capabilities() {
      return storage.capabilities;
    },
    read: (fn) => storage.transaction((tx) => fn(tx)),
    command: (ctx, fn, options) => runCommand(deps, ctx, fn, options),
    engineWork: (fn, options) => runEngineWork(deps, fn, options),
  };
  // `core` is a copy: parts the engine sets later (wakeWorkers) are read through `deps`
  return { ...core, storage: access };
}

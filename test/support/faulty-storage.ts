import type { AdapterStateTx, CommitOptions, StorageAdapter, StorageTx } from "../../src/ports";
import { StorageUnavailableError, isReadOnlyStoreMethod, type StorageUnavailableReason } from "../../src/ports/public";

/**
 * A fault injected into one storage session that writes (the sessions are counted from 0 as
 * each makes its first write call):
 * - `before`: its first write call throws, so the session rolls back: nothing of it committed
 *   (a full disk, a session killed before COMMIT);
 * - `after`: the session commits, then its caller gets the error: the answer to COMMIT was lost
 *   (a connection cut right after the server committed).
 */
export interface InjectedFault {
  at: number;
  mode: "before" | "after";
  reason: StorageUnavailableReason;
}

/**
 * Storage in front of another with faults on demand, as a driver's classified errors would
 * reach the engine (`StorageUnavailableError`): `diskFull` makes every write call and every
 * claim of due work fail while reads keep working (a full disk); `inject` fails chosen sessions
 * (`InjectedFault`). Any adapter can be behind it: the faults are where the port is.
 */
export class FaultyStorage implements StorageAdapter {
  readonly name: string;
  /** While true, writes fail with `disk_full` (53100). */
  diskFull = false;
  /**
   * While set, the write calls it matches (named `store.method`, e.g. `work.complete`) fail
   * with `disk_full`, and claims and other writes go on: a fault at one chosen step.
   */
  refuse: ((call: string) => boolean) | null = null;
  private faults: InjectedFault[] = [];
  private writeSessions = 0;
  /** Faults that fired, in order. */
  readonly fired: InjectedFault[] = [];

  constructor(readonly inner: StorageAdapter) {
    this.name = inner.name;
  }

  get capabilities() {
    return this.inner.capabilities;
  }

  /** Fails the sessions `faults` name, counting write sessions from now. */
  inject(faults: InjectedFault[]): void {
    this.faults = faults;
    this.writeSessions = 0;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: CommitOptions): Promise<T> {
    return this.session((watch) => this.inner.transaction((tx) => fn(watchTx(tx, watch)), options));
  }

  autocommit<T>(fn: (tx: StorageTx) => Promise<T>, options?: CommitOptions): Promise<T> {
    return this.session((watch) => this.inner.autocommit((tx) => fn(watchTx(tx, watch)), options));
  }

  async claimDueWork(...args: Parameters<StorageAdapter["claimDueWork"]>) {
    if (this.diskFull) throw diskFull();
    return this.inner.claimDueWork(...args);
  }

  adapterState(namespace: string) {
    const store = this.inner.adapterState(namespace);
    return {
      namespace: store.namespace,
      transaction: <T>(fn: (state: AdapterStateTx) => Promise<T>, options?: CommitOptions) =>
        this.session((watch) => store.transaction((state) => fn(watchMethods(state, (method) => watch(`state.${method}`))), options)),
    };
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** One session: `watch` is called before each write call (it may throw: the fault); an `after` fault fires once it committed. */
  private async session<T>(run: (watch: (call: string) => void) => Promise<T>): Promise<T> {
    let index: number | null = null;
    let after: InjectedFault | null = null;
    const watch = (call: string) => {
      if (this.diskFull || this.refuse?.(call)) throw diskFull();
      if (index !== null) return;
      index = this.writeSessions++;
      const fault = this.faults.find((f) => f.at === index);
      if (fault?.mode === "before") {
        this.fired.push(fault);
        throw unavailable(fault.reason);
      }
      if (fault?.mode === "after") after = fault;
    };
    const value = await run(watch);
    if (after) {
      this.fired.push(after);
      throw unavailable((after as InjectedFault).reason);
    }
    return value;
  }
}

function unavailable(reason: StorageUnavailableReason): StorageUnavailableError {
  return reason === "disk_full" ? diskFull() : new StorageUnavailableError(reason, `injected: storage unavailable (${reason})`);
}

function diskFull(): StorageUnavailableError {
  return new StorageUnavailableError("disk_full", "injected: could not extend file: No space left on device", { code: "53100" });
}

function watchTx(tx: StorageTx, watch: (call: string) => void): StorageTx {
  const out: Record<string, object> = {};
  for (const [store, methods] of Object.entries(tx)) out[store] = watchMethods(methods as object, (method) => watch(`${store}.${method}`));
  return out as unknown as StorageTx;
}

/** `target` whose methods that may write call `watch` first, with their name. */
function watchMethods<T extends object>(target: T, watch: (method: string) => void): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== "function" || typeof prop !== "string" || isReadOnlyStoreMethod(prop)) return value;
      return (...args: unknown[]) => {
        watch(prop);
        return (value as (...a: unknown[]) => unknown).apply(obj, args);
      };
    },
  });
}

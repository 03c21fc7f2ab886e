import { AdapterError } from "../errors";
import { OBSERVER_MEMBERS, type EngineObserver } from "./observer";
import type { AdapterStateTx } from "./adapter-state";
import type { CommitOptions, StorageAdapter, StorageTx } from "./storage";
import { isReadOnlyStoreMethod } from "./storage/unavailable";
import { inSpan, NO_TRACER, type SpanAttributes, type Tracer } from "./tracer";
import { callAttributes } from "./traced-calls";

/**
 * Hears how each storage session the core opens ends (`guardStorage`): `begin` is called as it
 * starts, in the caller's async context; `wrote` says whether it called a store method that may
 * write (`isReadOnlyStoreMethod`). The engine's `StorageWatch` implements it.
 */
export interface StorageSessionWatch {
  begin(kind: "transaction" | "autocommit" | "claim"): { succeeded(wrote: boolean): void; failed(error: unknown, wrote: boolean): void };
}

/** Times the asynchronous calls of a guarded adapter, and every one that throws (see `guardMethods`). */
export interface CallTiming {
  now(): number;
  report(operation: string, durationMs: number, failed: boolean): void;
  /** Runs each call in a span of `tracer` (client kind), named and described by `span`. */
  trace?: { tracer: Tracer; span(operation: string, args: readonly unknown[]): { name: string; attributes: SpanAttributes } };
}

/**
 * Core-owned wrappers around injected adapters (docs/architecture.md; after kysely's runtime driver): init
 * runs once, nothing runs after close, and whatever an adapter throws reaches the core as an
 * `AdapterError` carrying the adapter's name and the original error as `cause`.
 */
export function guardMethods<T extends object>(adapter: string, target: T, label = "", timing?: CallTiming): T {
  return wrapMethods(target, (method, obj, prop) => {
    const operation = `${label}${String(prop)}`;
    const trace = timing?.trace?.tracer.enabled ? timing.trace : null;
    const call = (args: unknown[]) => {
      const started = timing?.now() ?? 0;
      const done = (failed: boolean) => timing?.report(operation, timing.now() - started, failed);
      try {
        const result = method.apply(obj, args);
        // only calls that wait on something are timed: a synchronous answer (an address
        // check, a capability) costs nothing worth a metric
        if (!(result instanceof Promise)) return result;
        return result.then(
          (v: unknown) => {
            done(false);
            return v;
          },
          (e: unknown) => {
            done(true);
            return Promise.reject(wrap(adapter, operation, e));
          },
        );
      } catch (e) {
        done(true);
        throw wrap(adapter, operation, e);
      }
    };
    return trace
      ? (...args: unknown[]) => {
          const { name, attributes } = trace.span(operation, args);
          return inSpan(trace.tracer, name, { kind: "client", attributes }, () => call(args));
        }
      : (...args: unknown[]) => call(args);
  });
}

/** `target` with each method replaced, as first reached, by what `wrapMethod` makes of it (kept for later reaches). */
function wrapMethods<T extends object>(target: T, wrapMethod: (method: (...args: unknown[]) => unknown, obj: T, prop: PropertyKey) => unknown): T {
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== "function") return value;
      let wrapped = cache.get(prop);
      if (!wrapped) cache.set(prop, (wrapped = wrapMethod(value as (...args: unknown[]) => unknown, obj, prop)));
      return wrapped;
    },
  });
}

function wrap(adapter: string, operation: string, e: unknown): AdapterError {
  return e instanceof AdapterError ? e : new AdapterError(adapter, operation, e);
}

/**
 * Every store of a transaction, guarded as the core first reaches it (a transaction uses a few of
 * its stores, and a payout create runs four transactions): `wrote` hears each call of a method
 * that may write, as it is made.
 */
function guardTx(name: string, tx: StorageTx, wrote: () => void): StorageTx {
  const guarded = new Map<PropertyKey, unknown>();
  return new Proxy(tx, {
    get(obj, store, receiver) {
      const value = Reflect.get(obj, store, receiver);
      if (typeof value !== "object" || value === null) return value;
      let made = guarded.get(store);
      if (!made) guarded.set(store, (made = guardWrites(name, value, `${String(store)}.`, wrote)));
      return made;
    },
  });
}

/** Whether each store method may write, as `isReadOnlyStoreMethod` answers it once per name. */
const writing = new Map<string, boolean>();

/**
 * A store's methods as `guardMethods` wraps them, untimed (storage sessions are timed whole):
 * `wrote` hears each call of a method that may write, as it is made.
 */
function guardWrites<T extends object>(adapter: string, target: T, label: string, wrote: () => void): T {
  return wrapMethods(target, (method, obj, prop) => {
    const name = String(prop);
    const operation = `${label}${name}`;
    let writes = writing.get(name);
    if (writes === undefined) writing.set(name, (writes = !isReadOnlyStoreMethod(name)));
    const failed = (e: unknown) => Promise.reject(wrap(adapter, operation, e));
    return (...args: unknown[]) => {
      if (writes) wrote();
      try {
        const result = method.apply(obj, args);
        return result instanceof Promise ? result.then(undefined, failed) : result;
      } catch (e) {
        throw wrap(adapter, operation, e);
      }
    };
  });
}

/** The storage adapter as the core uses it. */
export function guardStorage(
  adapter: StorageAdapter,
  watch?: StorageSessionWatch,
  tracer: Tracer = NO_TRACER,
): StorageAdapter & { readonly closed: boolean; readonly initialized: boolean } {
  const name = adapter.name;
  let initialized: Promise<void> | null = null;
  let initDone = false;
  let closed = false;
  const open = (operation: string) => {
    if (closed) throw new Error(`storage ${name} is closed (${operation} after close)`);
  };
  /** A transaction of some kind: what `fn` throws reaches the caller as it is, the adapter's own failures wrapped. */
  const session = <X, T>(
    operation: string,
    begin: (inner: (tx: X) => Promise<T>) => Promise<T>,
    fn: (tx: X, wrote: () => void) => Promise<T>,
    kind: "transaction" | "autocommit" = "transaction",
  ): Promise<T> => {
    // a span only inside another (a request, an operation, due work): never a root of its own
    // for the sessions nothing traced asked for (heartbeats, polls)
    if (!tracer.enabled || !tracer.current()) return untraced(operation, begin, fn, kind);
    const attributes = { "payrail.storage.adapter": name, "payrail.storage.session": operation };
    return inSpan(tracer, `storage ${operation}`, { kind: "client", attributes }, () => untraced(operation, begin, fn, kind));
  };
  const untraced = async <X, T>(
    operation: string,
    begin: (inner: (tx: X) => Promise<T>) => Promise<T>,
    fn: (tx: X, wrote: () => void) => Promise<T>,
    kind: "transaction" | "autocommit",
  ): Promise<T> => {
    open(operation);
    const watching = watch?.begin(kind);
    let wrote = false;
    const onWrite = () => {
      wrote = true;
    };
    let thrownByFn: { error: unknown } | null = null;
    try {
      const value = await begin(async (tx) => {
        wrote = false; // a transaction the adapter runs again starts over
        try {
          return await fn(tx, onWrite);
        } catch (e) {
          thrownByFn = { error: e };
          throw e;
        }
      });
      watching?.succeeded(wrote);
      return value;
    } catch (e) {
      watching?.failed(e, wrote);
      if (thrownByFn && (thrownByFn as { error: unknown }).error === e) throw e;
      throw wrap(name, operation, e);
    }
  };
  const run = <T>(operation: "transaction" | "autocommit", fn: (tx: StorageTx) => Promise<T>, options?: CommitOptions): Promise<T> =>
    session(
      operation,
      (inner: (tx: StorageTx) => Promise<T>) => adapter[operation](inner, options),
      (tx, onWrite) => fn(guardTx(name, tx, onWrite)),
      operation,
    );
  return {
    name,
    capabilities: adapter.capabilities,
    get closed() {
      return closed;
    },
    /** `init` (creating or migrating the schema) has completed. */
    get initialized() {
      return initDone;
    },
    init() {
      open("init");
      initialized ??= adapter.init().then(
        () => {
          initDone = true;
        },
        (e: unknown) => {
          initialized = null;
          throw wrap(name, "init", e);
        },
      );
      return initialized;
    },
    transaction: (fn, options) => run("transaction", fn, options),
    autocommit: (fn, options) => run("autocommit", fn, options),
    adapterState(namespace) {
      const store = adapter.adapterState(namespace);
      return {
        namespace: store.namespace,
        transaction<T>(fn: (tx: AdapterStateTx) => Promise<T>, options?: CommitOptions) {
          const label = `adapterState(${store.namespace}).`;
          return session<AdapterStateTx, T>(
            `${label}transaction`,
            (inner) => store.transaction(inner, options),
            (tx, onWrite) => fn(guardWrites(name, tx, label, onWrite)),
          );
        },
      };
    },
    async claimDueWork(request) {
      open("claimDueWork");
      const watching = watch?.begin("claim");
      try {
        const claimed = await adapter.claimDueWork(request);
        watching?.succeeded(false); // a claim that found nothing wrote nothing: it says nothing of a full disk
        return claimed;
      } catch (e) {
        watching?.failed(e, false);
        throw wrap(name, "claimDueWork", e);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await adapter.close();
    },
  };
}

/**
 * The observer as the core calls it: an observer that throws loses that one observation and
 * never fails the engine's work; `onError` hears about it (once per member, so a broken
 * exporter cannot flood the logs).
 */
export function guardObserver(observer: EngineObserver, onError: (error: unknown) => void = () => undefined): EngineObserver {
  const reported = new Set<string>();
  const guarded = {} as Record<keyof EngineObserver, (o: unknown) => void>;
  for (const member of OBSERVER_MEMBERS) {
    const call = observer[member] as ((o: unknown) => void) | undefined;
    guarded[member] = (o: unknown) => {
      if (!call) return; // an optional member the observer does not have
      try {
        call.call(observer, o);
      } catch (e) {
        if (reported.has(member)) return;
        reported.add(member);
        onError(e);
      }
    };
  }
  return guarded as unknown as EngineObserver;
}

/**
 * Timing of a chain, venue or screening adapter's calls, reported to the observer; with an enabled
 * `tracer`, each call is a span too (`chain broadcast`), with the chain and transfer id it names.
 */
export function adapterTiming(
  observer: EngineObserver,
  clock: { now(): number },
  port: "chain" | "venue" | "screening",
  adapter: string,
  tracer: Tracer = NO_TRACER,
): CallTiming {
  return {
    now: () => clock.now(),
    report: (operation, durationMs, failed) => observer.adapterCalled({ port, adapter, operation, durationMs, failed }),
    ...(tracer.enabled
      ? { trace: { tracer, span: (operation, args) => ({ name: `${port} ${operation}`, attributes: callAttributes(port, adapter, operation, args) }) } }
      : {}),
  };
}

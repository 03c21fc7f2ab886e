import { AdapterError } from "../errors";
import type { StorageAdapter, StorageTx } from "./storage";

/**
 * Core-owned wrappers around injected adapters (DESIGN.md, after kysely's runtime driver): init
 * runs once, nothing runs after close, and whatever an adapter throws reaches the core as an
 * `AdapterError` carrying the adapter's name and the original error as `cause`.
 */
export function guardMethods<T extends object>(adapter: string, target: T, label = ""): T {
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== "function") return value;
      let wrapped = cache.get(prop);
      if (!wrapped) {
        const operation = `${label}${String(prop)}`;
        wrapped = (...args: unknown[]) => {
          try {
            const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
            return result instanceof Promise ? result.catch((e: unknown) => Promise.reject(wrap(adapter, operation, e))) : result;
          } catch (e) {
            throw wrap(adapter, operation, e);
          }
        };
        cache.set(prop, wrapped);
      }
      return wrapped;
    },
  });
}

function wrap(adapter: string, operation: string, e: unknown): AdapterError {
  return e instanceof AdapterError ? e : new AdapterError(adapter, operation, e);
}

function guardTx(name: string, tx: StorageTx): StorageTx {
  return {
    accounts: guardMethods(name, tx.accounts, "accounts."),
    rateLimits: guardMethods(name, tx.rateLimits, "rateLimits."),
    ledger: guardMethods(name, tx.ledger, "ledger."),
    resources: guardMethods(name, tx.resources, "resources."),
    events: guardMethods(name, tx.events, "events."),
    idempotency: guardMethods(name, tx.idempotency, "idempotency."),
    work: guardMethods(name, tx.work, "work."),
    meta: guardMethods(name, tx.meta, "meta."),
    depositAddresses: guardMethods(name, tx.depositAddresses, "depositAddresses."),
    deliveries: guardMethods(name, tx.deliveries, "deliveries."),
  };
}

/** The storage adapter as the core uses it. */
export function guardStorage(adapter: StorageAdapter): StorageAdapter & { readonly closed: boolean } {
  const name = adapter.name;
  let initialized: Promise<void> | null = null;
  let closed = false;
  const open = (operation: string) => {
    if (closed) throw new Error(`storage ${name} is closed (${operation} after close)`);
  };
  return {
    name,
    capabilities: adapter.capabilities,
    get closed() {
      return closed;
    },
    init() {
      open("init");
      initialized ??= adapter.init().catch((e: unknown) => {
        initialized = null;
        throw wrap(name, "init", e);
      });
      return initialized;
    },
    async transaction(fn) {
      open("transaction");
      let thrownByFn: { error: unknown } | null = null;
      try {
        return await adapter.transaction(async (tx) => {
          try {
            return await fn(guardTx(name, tx));
          } catch (e) {
            thrownByFn = { error: e };
            throw e;
          }
        });
      } catch (e) {
        if (thrownByFn && (thrownByFn as { error: unknown }).error === e) throw e;
        throw wrap(name, "transaction", e);
      }
    },
    async claimDueWork(request) {
      open("claimDueWork");
      try {
        return await adapter.claimDueWork(request);
      } catch (e) {
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
